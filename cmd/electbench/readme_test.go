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

// TestNightlyWorkflow runs the electbench steps of docs/nightly.yml, in
// order, for two nights: the first has no history to compare with (the
// workflow skips compare), the second compares tonight with the first
// night, leaving tonight's own stored copy out, and must pass; the history
// page's links must resolve. The hunts (scripts/nightlyhunts.sh) run on a
// tiny budget, find nothing and are stored. (compare.txtar pins the
// regressions, nightly_hunt.txtar a counterexample new in a night.)
func TestNightlyWorkflow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "nightly.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	hunts := ""
	for _, l := range strings.Split(string(b), "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(l), "run: electbench "); ok {
			steps = append(steps, "electbench "+cmd)
		}
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(l), "run: bash scripts/nightlyhunts.sh "); ok {
			hunts = "bash scripts/nightlyhunts.sh " + cmd
		}
	}
	if len(steps) != 3 || !strings.Contains(steps[0], " run ") || !strings.Contains(steps[1], " compare ") || hunts == "" {
		t.Fatalf("docs/nightly.yml: want the run, hunts, compare and report steps, found %q and %q", steps, hunts)
	}
	huntScript, err := os.ReadFile(filepath.Join("..", "..", "scripts", "nightlyhunts.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	script.WriteString("env HUNT_BUDGET=8\n")
	night := func(compare bool) {
		script.WriteString("rm tonight\n")
		fmt.Fprintf(&script, "exec bash run.sh\n")
		script.WriteString("exec bash hunts.sh\nstdout '^nightly hunts: no counterexample$'\n")
		script.WriteString("exists tonight/hunt-chang-roberts/hunt.json tonight/hunt-raft/hunt.json tonight/hunt-etcd-raft/hunt.json tonight/hunt-incidents/hunt.json\n")
		if compare {
			script.WriteString("exec bash compare.sh\nstdout 'no significant change'\nstderr '^base: [0-9] run\\(s\\) of history pooled: 000001-.*\\(left out 00000[0-9]-.*: it is NEW\\)$'\nexists history/compare.html\n")
		}
		script.WriteString("exec bash report.sh\nexists history/report.html history/index.html\n")
	}
	night(false)
	night(true)
	// Both nights' hunts are stored in the history and listed on its page.
	script.WriteString("exec ls history/hunts\nstdout -count=8 '^0000'\ngrep 'id=\"hunts\"' history/index.html\n")
	// history/index.html links every run's results by a relative path that exists.
	script.WriteString("exec bash links.sh\n")
	fmt.Fprintf(&script, "-- run.sh --\n%s\n-- hunts.sh --\n%s\n-- compare.sh --\n%s\n-- report.sh --\n%s\n", steps[0], hunts, steps[1], steps[2])
	fmt.Fprintf(&script, "-- scripts/nightlyhunts.sh --\n%s", huntScript)
	script.WriteString("-- links.sh --\nset -e\ncd history\nn=0\nfor l in $(grep -o 'href=\"[^\"#]*\"' index.html | sed 's/href=\"//; s/\"$//'); do test -e \"$l\"; n=$((n+1)); done\ntest $n -ge 2\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nightly.txtar"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:  dir,
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits},
	})
}
