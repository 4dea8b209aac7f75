package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// issue 39, item 10: the run's log of node programs' standard error is
// rotated past its bound, so it takes at most twice the bound on disk
// however much is written, and keeps the latest lines.
func TestNodesLogRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.log")
	l := &lazyFile{path: path, max: 1000}
	defer l.close()
	line := strings.Repeat("x", 99) + "\n"
	for range 100 {
		if _, err := l.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Write([]byte("last\n")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("after 10,005 bytes with a bound of 1,000: %v", err)
		}
		if st.Size() > 1000 {
			t.Errorf("%s: %d bytes, past the bound of 1,000", filepath.Base(p), st.Size())
		}
	}
	if b, err := os.ReadFile(path); err != nil || !strings.HasSuffix(string(b), "last\n") {
		t.Errorf("nodes.log does not end with the last line written (%v)", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 2 {
		t.Errorf("%d files, want nodes.log and nodes.log.1", len(entries))
	}
}
