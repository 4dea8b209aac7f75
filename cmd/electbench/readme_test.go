package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// exitsComment marks a README example that fails on purpose: "# exits 1".
var exitsComment = regexp.MustCompile(`#\s*exits (\d+)`)

// readmeExamples returns the command lines of the README's examples block
// (the sh block after "Examples"), comments and blank lines left out.
func readmeExamples(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\nExamples (")
	if !ok {
		t.Fatal("README.md has no examples section")
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md's examples section has no sh block")
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestReadmeExamples runs every example of README.md as written, in order,
// in a temporary directory, through bash with the electbench under test on
// PATH: each must exit 0, or the code its "# exits N" comment gives.
func TestReadmeExamples(t *testing.T) {
	lines := readmeExamples(t)
	if len(lines) < 15 {
		t.Fatalf("found only %d examples in README.md", len(lines))
	}
	var script, files strings.Builder
	script.WriteString("env HOME=$WORK/home\n")
	for i, l := range lines {
		code := "0"
		if m := exitsComment.FindStringSubmatch(l); m != nil {
			code = m[1]
		}
		fmt.Fprintf(&script, "exits %s bash ex%02d.sh\n", code, i)
		fmt.Fprintf(&files, "-- ex%02d.sh --\n%s\n", i, l)
	}
	// What the examples promise, checked on what they left behind.
	script.WriteString("grep '^bully,classic,sim,adhoc,8,([^,]*,){15}[1-9]' new/results.csv\n")
	script.WriteString("! grep '^bully,classic,sim,adhoc,8,([^,]*,){15}[1-9]' base/results.csv\n")
	script.WriteString("grep '\"regression\": true' compare.json\n")
	script.WriteString("exists node.id node.id.key halves.yaml trace.jsonl compare.json hist/index.html\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "readme.txtar"), []byte(script.String()+files.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:  dir,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits},
	})
}
