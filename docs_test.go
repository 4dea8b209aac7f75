package electbench_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// DESIGN.md holds the rules only (issue 36): the live runtime's mechanics are
// in LIVE.md and the measurements in DECISIONS.md, so that it stays short
// enough to be read whole.
func TestDocDesignIsShort(t *testing.T) {
	b, err := os.ReadFile("docs/DESIGN.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 250 {
		t.Errorf("docs/DESIGN.md has %d lines, more than 250: move mechanisms to LIVE.md and measurements to DECISIONS.md", n)
	}
}

// sectionRef is a citation of a section of one of the project's own design
// pages, as code and docs write it: DESIGN.md, "The plan guard" or
// STYLE.md ("Determinism").
var sectionRef = regexp.MustCompile(`\b(DESIGN|LIVE|STYLE|DECISIONS)\.md(?:, | \()"([^"]+)"`)

// Every citation of a section of DESIGN, LIVE, STYLE or DECISIONS names one
// that exists: a heading or a paragraph's bold lead ("**The plan guard.**")
// containing the quoted words. A section renamed or moved fails here, with
// the file that still cites it.
func TestDocSectionReferences(t *testing.T) {
	sections := map[string]string{}
	for _, doc := range []string{"DESIGN", "LIVE", "STYLE", "DECISIONS"} {
		b, err := os.ReadFile(filepath.Join("docs", doc+".md"))
		if err != nil {
			t.Fatal(err)
		}
		var heads []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "**") {
				heads = append(heads, strings.ToLower(l))
			}
		}
		sections[doc] = strings.Join(heads, "\n")
	}
	found := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" && strings.Contains(path, "fuzz")) {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".txtar", ".yaml", ".yml", ".py":
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range sectionRef.FindAllStringSubmatch(string(b), -1) {
			found++
			name := strings.ToLower(strings.Join(strings.Fields(m[2]), " ")) // a citation may wrap
			if !strings.Contains(sections[m[1]], name) {
				t.Errorf("%s cites %s.md, %q: no heading or bold lead of docs/%s.md has it", path, m[1], name, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 5 {
		t.Fatalf("found only %d citations of sections: is the pattern still how the code cites them?", found)
	}
}
