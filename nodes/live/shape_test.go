package live

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// The package keeps the shape of issue 36: no type with methods owns more
// than maxFields fields (plain records without methods, such as the
// control channel's Report, are data, not owners), and no function is
// longer than maxLines lines. Counted over the package's non-test files.
const (
	maxFields = 20
	maxLines  = 100
)

func TestShape(t *testing.T) {
	fset := token.NewFileSet()
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatalf("reading the package's directory: %v", err)
	}
	structs := map[string]*ast.StructType{}
	withMethods := map[string]bool{}
	funcs := 0
	for _, ent := range ents {
		name := ent.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok {
						if st, ok := ts.Type.(*ast.StructType); ok {
							structs[ts.Name.Name] = st
						}
					}
				}
			case *ast.FuncDecl:
				funcs++
				if d.Recv != nil {
					withMethods[receiverName(d.Recv.List[0].Type)] = true
				}
				if lines := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line + 1; lines > maxLines {
					t.Errorf("%s (%s) is %d lines long; at most %d", d.Name.Name, name, lines, maxLines)
				}
			}
		}
	}
	if len(structs) < 10 || funcs < 100 || !withMethods["node"] || !withMethods["netTransport"] {
		t.Fatalf("read %d structs and %d functions (node has methods: %v): the parse missed the package", len(structs), funcs, withMethods["node"])
	}
	for name, st := range structs {
		if !withMethods[name] {
			continue
		}
		fields := 0
		for _, f := range st.Fields.List {
			fields += max(len(f.Names), 1) // an embedded field is one
		}
		if fields > maxFields {
			t.Errorf("type %s has methods and %d fields; at most %d", name, fields, maxFields)
		}
	}
}

// receiverName is the type a method's receiver names: T in (x T), (x *T)
// and (x *T[P]).
func receiverName(e ast.Expr) string {
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
			return ""
		}
	}
}
