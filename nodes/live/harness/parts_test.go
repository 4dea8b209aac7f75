package harness

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The harness's files depend downward (issue 36): the Runtime (cluster.go)
// runs trials, each trial's coordinator (run.go) drives parts that own
// their own state, and the parts — processes, links, faults, event log,
// clock, settling — reach nothing above them but through the narrow
// interfaces they declare (faultHost). A part that names the coordinator
// or the Runtime calls back up.
func TestPartsDependDownward(t *testing.T) {
	above := map[string][]string{ // a name, and the files that may use it
		"Runtime":   {"cluster.go"},
		"liveTrial": {"cluster.go", "run.go"},
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if may, ok := above[id.Name]; ok && !slices.Contains(may, name) {
					t.Errorf("%s names %s: only %v may", name, id.Name, may)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files: the package's files were not found", checked)
	}
}
