package electbench_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The layering of docs/DESIGN.md ("Layout and dependency direction"),
// checked against what `go list` says the packages import. Each rule names
// the packages it constrains and what they may not reach, directly or
// through others (transitive dependencies), or the only module packages
// they may import directly.

const module = "github.com/electbench/electbench/"

type pkg struct {
	ImportPath string
	Imports    []string // direct
	Deps       []string // transitive
}

func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

func local(paths []string) []string {
	var out []string
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, module); ok {
			out = append(out, rest)
		}
	}
	return out
}

var (
	algorithms = []string{"nodes/ring", "nodes/bully", "nodes/quorum", "nodes/quorum/tally", "nodes/etcdraft"}
	runtimes   = []string{"nodes/sim", "nodes/live", "nodes/live/harness"}
)

func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	for _, must := range append(append([]string{"nodes", "nodes/trial", "nodes/trial/timeline", "nodes/check", "nodes/external", "chaos", "workloads", "reports"}, algorithms...), runtimes...) {
		if _, ok := pkgs[must]; !ok {
			t.Fatalf("package %s is missing: update the rules with the layout", must)
		}
	}
	// Only these module packages may be imported directly.
	only := map[string][]string{
		"nodes/trial":          {"nodes"},
		"nodes/check":          {"nodes", "nodes/trial"},
		"nodes/trial/timeline": {"nodes", "nodes/trial"},
		// Programs in any language behind the Machine contract: it runs
		// processes (os/exec), but it is no runtime.
		"nodes/external": {"nodes"},
	}
	for _, a := range algorithms {
		only[a] = []string{"nodes", "nodes/quorum/tally"} // the family's own helpers
	}
	// internal/ holds leaf utilities (bounded reading, host memory,
	// faulting arrays in): they import no package of the module, and any
	// package may import them.
	for p, info := range pkgs {
		if strings.HasPrefix(p, "internal/") {
			if imps := local(info.Imports); len(imps) > 0 {
				t.Errorf("%s imports %v; internal/ packages import no package of the module", p, imps)
			}
		}
	}
	for p, allowed := range only {
		for _, imp := range local(pkgs[p].Imports) {
			if !slices.Contains(allowed, imp) && !strings.HasPrefix(imp, "internal/") {
				t.Errorf("%s imports %s; it may import only %v", p, imp, allowed)
			}
		}
	}
	// Never, directly or through another package.
	never := map[string][]string{
		"chaos":     runtimes,
		"reports":   append(append([]string{"workloads", "chaos"}, runtimes...), algorithms...),
		"workloads": {"chaos/toxi", "os/exec", "github.com/Shopify/toxiproxy/v2"},
	}
	for _, r := range runtimes {
		never[r] = append([]string{"workloads"}, algorithms...)
	}
	// Both runtimes run the one fault engine (nodes/trial/timeline) as its
	// Injector and never read scenario files.
	for _, r := range runtimes {
		never[r] = append(never[r], "chaos")
	}
	for p, banned := range never {
		deps := append(local(pkgs[p].Deps), pkgs[p].Deps...)
		for _, b := range banned {
			if slices.Contains(deps, b) {
				t.Errorf("%s reaches %s; docs/DESIGN.md's layering forbids it", p, b)
			}
		}
	}
	// No package but cmd prints to the terminal: checked by the helpers
	// (nodes/live takes an io.Writer) and by review; what can be checked
	// here is that nothing outside cmd imports the flag package.
	testSupport := []string{"nodes/nodetest", "nodes/live/livetest"} // their flags are test flags
	for p, info := range pkgs {
		if strings.HasPrefix(p, "cmd/") || slices.Contains(testSupport, p) {
			continue
		}
		if slices.Contains(info.Imports, "flag") {
			t.Errorf("%s imports flag: command lines are parsed in cmd/ only", p)
		}
	}
}
