package nodetest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite is declared here, not in each package's tests, so that every test
// binary importing nodetest accepts it: go test ./nodes/ring -rewrite.
var rewrite = flag.Bool("rewrite", false, "nodetest: write golden transcripts under testdata/ instead of comparing")

// Golden compares got with the file testdata/<name>.txt of the package under
// test, or writes the file when the test runs with -rewrite. Review a
// rewritten file before committing it.
func Golden(t testing.TB, name, got string) {
	t.Helper()
	if err := golden(filepath.Join("testdata", name+".txt"), got, *rewrite); err != nil {
		t.Fatal(err)
	}
}

func golden(path, got string, rewrite bool) error {
	if rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("rewrite golden file: %w", err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			return fmt.Errorf("rewrite golden file: %w", err)
		}
		return nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("golden file: %w (go test -rewrite creates it)", err)
	}
	want := string(raw)
	if got == want {
		return nil
	}
	gl := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	wl := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	i := 0
	for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
		i++
	}
	if i == len(gl) && i == len(wl) {
		return fmt.Errorf("transcript differs from %s in its final newline", path)
	}
	line := func(ls []string) string {
		if i < len(ls) {
			return ls[i]
		}
		return "(end of file)"
	}
	return fmt.Errorf("transcript differs from %s at line %d:\n got: %s\nwant: %s\n(go test -rewrite accepts the new transcript)",
		path, i+1, line(gl), line(wl))
}
