package nodetest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRewriteFlagIsDeclared(t *testing.T) {
	f := flag.Lookup("rewrite")
	if f == nil || f.DefValue != "false" {
		t.Fatalf("flag -rewrite: %+v", f)
	}
}

func TestGoldenRewriteAndCompare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "case.txt")
	const v1 = "t=0T start p=0\nt=0T send 0->1 OK\n"
	const v2 = "t=0T start p=0\nt=0T send 0->2 OK\n"

	if err := golden(path, v1, false); err == nil || !strings.Contains(err.Error(), "go test -rewrite creates it") {
		t.Fatalf("missing file: %v", err)
	}
	if err := golden(path, v1, true); err != nil {
		t.Fatalf("rewrite: %v", err)
	}
	if raw, err := os.ReadFile(path); err != nil || string(raw) != v1 {
		t.Fatalf("rewrite wrote %q, %v", raw, err)
	}
	if err := golden(path, v1, false); err != nil {
		t.Fatalf("the same transcript: %v", err)
	}
	err := golden(path, v2, false)
	want := "transcript differs from " + path + " at line 2:\n got: t=0T send 0->2 OK\nwant: t=0T send 0->1 OK\n"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("a changed transcript: %v", err)
	}
	if err := golden(path, v1+"t=1T recv 0->1 OK\n", false); err == nil || !strings.Contains(err.Error(), "want: (end of file)") {
		t.Fatalf("a longer transcript: %v", err)
	}
	if err := golden(path, v2, true); err != nil {
		t.Fatalf("rewrite over: %v", err)
	}
	if err := golden(path, v2, false); err != nil {
		t.Fatalf("after the rewrite: %v", err)
	}
}
