package electbench_test

import (
	"encoding/json"
	"maps"
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
	ImportPath   string
	Imports      []string // direct
	Deps         []string // transitive
	TestImports  []string // direct, of the package's own _test.go files
	XTestImports []string // direct, of its external (package x_test) test files
}

func listPackages(t *testing.T) map[string]pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps,TestImports,XTestImports", "./...").Output()
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
		name := strings.TrimPrefix(p.ImportPath, module)
		if p.ImportPath+"/" == module {
			name = "." // the module's root: only tests, such as this one
		}
		pkgs[name] = p
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
	algorithms = []string{"nodes/ring", "nodes/bully", "nodes/quorum", "nodes/quorum/tally", "nodes/etcdraft", "nodes/hraft", "nodes/k8slease", "nodes/mutex"}
	runtimes   = []string{"nodes/sim", "nodes/live", "nodes/live/harness"}
)

// floors places every package of the module, bottom up, in the order of
// DESIGN's layout: imports point down, so a package imports only packages
// on its own floor or below (the rules of TestLayering narrow that further).
// internal/ is the floor below all of them. A package on no floor fails
// TestEveryPackageHasRules: place a new package before it can land.
var floors = [][]string{
	{"nodes"}, // the contract
	append([]string{
		"nodes/external", "nodes/trial", "nodes/nodetest", // beside the contract
		"pow", "reports", "nodes/live/harness/toxi", // leaves that know rows, identities, a Toxiproxy client
		"nodes/live/harness/netcut", // a leaf that cuts loopback links in nftables
		"nodes/live/harness/hostns", // a leaf that makes hosts of network namespaces
		"nodes/live/harness/system", // real servers run from outside, over netcut and a proxy per member
		// The server algorithms' registrations (names, variants,
		// parameters): the live harness reads them to run the servers.
		"nodes/servers",
	}, algorithms...),
	{"nodes/check", "nodes/trial/timeline"},                                  // read trial events; the one fault engine
	append([]string{"nodes/live/livetest", "nodes/live/agent"}, runtimes...), // the runtimes, their test support, the per-host agent
	{"chaos"},     // scenario files, compiled to trial faults
	{"workloads"}, // what a run does, over every runtime
	{"shrink"},    // minimising a failing scenario, replaying it, its fault story
	{"hunt"},      // the search for failing schedules, over workloads' trials
	{"cmd/electbench", "cmd/heaploop", "examples/nodes/cr-go", "."}, // programs, and the root's tests
}

func floorOf(p string) int {
	if strings.HasPrefix(p, "internal/") {
		return -1
	}
	for i, f := range floors {
		if slices.Contains(f, p) {
			return i
		}
	}
	return -2 // on no floor: TestEveryPackageHasRules says so
}

// standalone programs import no package of the module, not even internal/:
// heaploop is the baseline a person would write without electbench, and an
// example node shows what a program in any language needs (NODE-PROTOCOL.md).
var standalone = []string{"cmd/heaploop", "examples/nodes/cr-go"}

// TestEveryPackageHasRules: every package `go list ./...` shows stands on a
// floor, so the import rules below cover it, and every package a rule names
// exists.
func TestEveryPackageHasRules(t *testing.T) {
	pkgs := listPackages(t)
	for p := range pkgs {
		if floorOf(p) == -2 {
			t.Errorf("package %s is on no floor of layering_test.go: place it (and give it rules) as docs/DESIGN.md's layout does", p)
		}
	}
	for _, f := range floors {
		for _, p := range f {
			if _, ok := pkgs[p]; !ok {
				t.Errorf("layering_test.go places %s, which go list does not show: update the floors with the layout", p)
			}
		}
	}
	for p := range only {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("layering_test.go's only rules name %s, which go list does not show", p)
		}
	}
}

// Only these module packages may be imported directly (internal/ aside).
var only = map[string][]string{
	"nodes":                {}, // the contract rests on internal/ alone
	"nodes/trial":          {"nodes"},
	"nodes/check":          {"nodes", "nodes/trial"},
	"nodes/trial/timeline": {"nodes", "nodes/trial"},
	// Programs in any language behind the Machine contract: it runs
	// processes (os/exec), but it is no runtime.
	"nodes/external": {"nodes"},
	// The in-memory network algorithm tests run on: no runtime's code, but
	// the one event vocabulary and transcript format (nodes/trial).
	"nodes/nodetest": {"nodes", "nodes/trial"},
	// Identities: pow -> nodes for nodes.ID is the one arrow between
	// top-level rooms that runs back up the layout's list.
	"pow":                       {"nodes"},
	"nodes/live/harness/toxi":   {},                                                       // Toxiproxy's client and server, nothing of ours
	"nodes/live/harness/netcut": {},                                                       // nftables over netlink, nothing of ours
	"nodes/live/harness/hostns": {},                                                       // network namespaces over netlink, nothing of ours
	"nodes/live/harness/system": {"nodes/live/harness/netcut", "nodes/live/harness/toxi"}, // cuts in the kernel, delays by a proxy per member
	"reports":                   {},                                                       // rows, not runtimes
	"nodes/live/livetest":       {"nodes/live"},
	"nodes/live/agent":          {"nodes/live", "nodes/live/harness/netcut", "nodes/live/harness/toxi"}, // a host's agent: starts node processes and its Toxiproxy server, relays their lines, cuts its host off
}

func TestLayering(t *testing.T) {
	pkgs := listPackages(t)
	for _, must := range append(append([]string{"nodes", "nodes/trial", "nodes/trial/timeline", "nodes/check", "nodes/external", "chaos", "workloads", "reports"}, algorithms...), runtimes...) {
		if _, ok := pkgs[must]; !ok {
			t.Fatalf("package %s is missing: update the rules with the layout", must)
		}
	}
	only := maps.Clone(only)
	for _, a := range algorithms {
		only[a] = []string{"nodes", "nodes/quorum/tally"} // the family's own helpers
	}
	// Imports point down: never to a package on a higher floor.
	for p, info := range pkgs {
		if floorOf(p) == -2 {
			continue // TestEveryPackageHasRules names it
		}
		for _, imp := range local(info.Imports) {
			if floorOf(imp) > floorOf(p) {
				t.Errorf("%s imports %s, a floor above it in layering_test.go's floors (docs/DESIGN.md: imports point down)", p, imp)
			}
		}
	}
	for _, p := range standalone {
		if imps := local(pkgs[p].Imports); len(imps) > 0 {
			t.Errorf("%s imports %v; a standalone program imports no package of the module", p, imps)
		}
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
		"workloads": {"nodes/live/harness/toxi", "os/exec", "github.com/Shopify/toxiproxy/v2"},
		// The shrinker runs and replays on the simulator only: a trace
		// hash fingerprints a simulated trial.
		"shrink": {"nodes/live/harness", "nodes/live/harness/toxi", "github.com/Shopify/toxiproxy/v2"},
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

// TestTestImports: a package's tests may run it on a runtime (the runtimes
// and their test support are every lower package's test bench), but a test
// that needs what lies above the runtimes (scenario files, workloads, the
// CLI) is an integration test of that floor and lives there, as
// workloads/etcdraft_scenarios_test.go does.
func TestTestImports(t *testing.T) {
	pkgs := listPackages(t)
	bench := floorOf(runtimes[0])
	for p, info := range pkgs {
		ceiling := max(floorOf(p), bench)
		for _, imp := range local(append(slices.Clone(info.TestImports), info.XTestImports...)) {
			if floorOf(imp) <= ceiling {
				continue
			}
			t.Errorf("tests of %s import %s, above the runtimes and %s's floor: move the test to the lowest package that may import %s", p, imp, p, imp)
		}
	}
}
