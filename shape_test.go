package electbench_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The house's shape (issue 36, "What must hold"), checked over every
// non-test, non-generated .go file of the module: no function over 100
// lines, no type with methods in the live runtime (nodes/live/...) over 20
// fields, and the CLI's run function under 80 lines, so that it stays
// plan -> session -> summary -> print.

const (
	maxFuncLines = 100
	maxFields    = 20 // of a type with methods under nodes/live/
	maxRunRun    = 79 // cmd/electbench's runRun: under 80 lines
)

// exempt are the functions allowed to be long, each for its reason.
var exempt = map[string]string{
	// The simulator's hot event loop: every event passes through it, and
	// what it does per event in line or out of line is chosen by
	// measurement (sim.go's noinline helpers), not split by a line count.
	"func nodes/sim.sim.run": "the simulator's hot event loop",
	// The scenario schema: the declarative table of every field a
	// scenario file may set, read top to bottom like docs/scenarios.md.
	"func chaos.init": "the scenario schema's field table",
}

// houseSizes returns the size of every function (lines, from func to its
// closing brace) and every type with methods under nodes/live/ (fields, an
// embedded type counting as one), keyed as "func dir.Recv.Name" and
// "struct dir.Name".
func houseSizes(t *testing.T) map[string]int {
	t.Helper()
	fset := token.NewFileSet()
	sizes := map[string]int{}
	structs := map[string]int{}     // struct fields under nodes/live/, by key
	hasMethods := map[string]bool{} // "struct dir.Name" of every receiver
	err := walkGo(func(path string) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				name := decl.Name.Name
				if decl.Recv != nil {
					recv := receiver(decl.Recv.List[0].Type)
					hasMethods["struct "+dir+"."+recv] = true
					name = recv + "." + name
				}
				lines := fset.Position(decl.End()).Line - fset.Position(decl.Pos()).Line + 1
				key := "func " + dir + "." + name
				sizes[key] = max(sizes[key], lines) // several init functions share a key
			case *ast.GenDecl:
				if dir != "nodes/live" && !strings.HasPrefix(dir, "nodes/live/") {
					continue
				}
				for _, spec := range decl.Specs {
					ts, ok := spec.(*ast.TypeSpec)
					if !ok {
						continue
					}
					if st, ok := ts.Type.(*ast.StructType); ok {
						structs["struct "+dir+"."+ts.Name.Name] = fields(st)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for key, n := range structs {
		if hasMethods[key] {
			sizes[key] = n
		}
	}
	return sizes
}

// receiver is the name of a method's receiver type, without its pointer
// and type parameters.
func receiver(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			panic(fmt.Sprintf("receiver of type %T", e))
		}
	}
}

func fields(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(len(f.Names), 1) // an embedded field is one
	}
	return n
}

// limit is the most a function or type of that key may measure.
func limit(key string) int {
	switch {
	case key == "func cmd/electbench.runRun":
		return maxRunRun
	case strings.HasPrefix(key, "struct "):
		return maxFields
	}
	return maxFuncLines
}

func TestHouseShape(t *testing.T) {
	sizes := houseSizes(t)
	if _, ok := sizes["func cmd/electbench.runRun"]; !ok {
		t.Fatal("cmd/electbench has no runRun: update the run function's rule with its new name")
	}
	for key, why := range exempt {
		if _, ok := sizes[key]; !ok {
			t.Errorf("exempt names %s (%s), which no longer exists: delete or rename the entry", key, why)
		}
	}
	for key, n := range sizes {
		if n <= limit(key) || exempt[key] != "" {
			continue
		}
		t.Errorf("%s measures %d, over %d: split it (docs/STYLE.md: small functions, types that own one thing)", key, n, limit(key))
	}
}

// TestEveryFuzzTargetHasCorpus: STYLE's fuzz targets keep their found
// inputs under testdata/fuzz/<FuzzName>/, so every plain `go test` replays
// them; a new target lands with its corpus.
func TestEveryFuzzTargetHasCorpus(t *testing.T) {
	fset := token.NewFileSet()
	targets := 0
	err := walkGo(func(path string) error {
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !strings.HasPrefix(fd.Name.Name, "Fuzz") {
				continue
			}
			targets++
			corpus := filepath.Join(filepath.Dir(path), "testdata", "fuzz", fd.Name.Name)
			if files, _ := filepath.Glob(filepath.Join(corpus, "*")); len(files) == 0 {
				t.Errorf("%s (%s) has no committed corpus in %s: fuzz it and commit what reaches distinct paths", fd.Name.Name, path, corpus)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if targets < 17 {
		t.Errorf("found %d fuzz targets, want at least the 17 of issue 36: is the walk missing files?", targets)
	}
}

// walkGo calls f with every .go file of the module's tree, testdata and
// hidden folders left out.
func walkGo(f func(path string) error) error {
	return filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return f(path)
	})
}
