package workloads

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/electbench/electbench/chaos"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/ring"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files (chaos/testdata/bad/errors.golden)")

// golden compares got with the file at path, or rewrites it with -rewrite.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *rewrite {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -rewrite creates it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -rewrite updates it; review the diff)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// Every broken scenario file of chaos/testdata/bad fails with errors that name the file,
// line, column and field, exactly as chaos/testdata/bad/errors.golden says; the
// whole check (parsing, then algorithms, models and selectors against the
// cluster) runs, nothing else.
func TestErrorMessagesGolden(t *testing.T) {
	files, err := filepath.Glob("../chaos/testdata/bad/*.*")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		_, err = ParseScenarios(name, data)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		var es chaos.Errors
		if !asErrors(err, &es) {
			t.Errorf("%s: error %T is not chaos.Errors: %v", name, err, err)
		}
		for _, e := range es {
			if e.File != name || e.Line == 0 {
				t.Errorf("%s: error without a file or line: %v", name, e)
			}
		}
		b.WriteString("== " + name + "\n" + err.Error() + "\n")
	}
	if n < 12 {
		t.Fatalf("only %d broken files", n)
	}
	golden(t, "../chaos/testdata/bad/errors.golden", b.String())
}

func asErrors(err error, es *chaos.Errors) bool {
	e, ok := err.(chaos.Errors)
	*es = e
	return ok
}
