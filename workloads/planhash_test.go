package workloads

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

func TestPlanHashBuiltins(t *testing.T) {
	seen := map[string]string{}
	for _, name := range chaos.BuiltinNames() {
		text, _ := chaos.Builtin(name)
		a, err := ParseScenarios(name, text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := ParseScenarios(name, text)
		ca := Canonical(a)
		// Two parses of one text: the same description, no pointer in it.
		if ca != Canonical(b) || strings.Contains(ca, "0x") {
			t.Errorf("%s: canonical form not stable:\n%s\n%s", name, ca, Canonical(b))
		}
		h := PlanHash(a)
		if other, dup := seen[h]; dup {
			t.Errorf("%s and %s share plan hash %s", name, other, h)
		}
		seen[h] = name
	}
}

func TestPlanHashAdhoc(t *testing.T) {
	spec := func(nodesFlag string, params nodes.Params, seed uint64) []*Spec {
		alg, v, err := nodes.Lookup("bully")
		if err != nil {
			t.Fatal(err)
		}
		ns, err := ParseNodes(nodesFlag)
		if err != nil {
			t.Fatal(err)
		}
		ids, _ := ParseIDs("random")
		in, _ := ParseInitiators("lowest")
		return []*Spec{{Scenario: "adhoc", Algos: []Algo{{Alg: alg, Variant: v, Params: params}}, Nodes: ns,
			IDs: ids, Initiators: in, Trials: 3, Seed: seed, Latency: trial.Constant(1e6)}}
	}
	base := PlanHash(spec("4..16", nodes.Params{"t1": "2T", "t2": "5T"}, 1))
	if h := PlanHash(spec("4,8,16", nodes.Params{"t2": "5T", "t1": "2T"}, 7)); h != base {
		t.Errorf("the same trials written otherwise, or another seed, changed the hash: %s vs %s", h, base)
	}
	if h := PlanHash(spec("4..16", nodes.Params{"t1": "1.5T", "t2": "5T"}, 1)); h == base {
		t.Error("another parameter kept the hash")
	}
	if h := PlanHash(spec("4..32", nodes.Params{"t1": "2T", "t2": "5T"}, 1)); h == base {
		t.Error("another size kept the hash")
	}
}

// Every field of Spec shapes the trials, so Canonical must describe it: a
// field added to Spec fails here until Canonical (and this list) has it.
func TestCanonicalCoversSpec(t *testing.T) {
	covered := []string{"Scenario", "Algos", "Nodes", "IDs", "Initiators", "Trials", "Latency", "Deadline",
		"Crashes", "Detector", "RankBy", "Faults", "LinkLatency", "Expect", "Runtime", "Budget", "KeepRunning", "LiveUnit",
		"TraceHash", "Draws", "Seed", // Seed: recorded apart (manifest seeds), deliberately not hashed
		"Description",       // Description: for people, shapes no trial (the manifest keeps it)
		"Hosts", "HostsDir", // where the nodes run shapes no trial's plan, as --hosts does not
		"planned"} // planned: Crashes, LinkLatency and Faults compiled once by Plan, nothing of its own
	typ := reflect.TypeOf(Spec{})
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; !slices.Contains(covered, name) {
			t.Errorf("Spec.%s is not in Canonical: add it there, then here", name)
		}
	}
}

// The plan hash describes a heartbeat detector as the trials run it: at
// T = 1ms, heartbeat(1T,4T) and heartbeat(1ms,4ms) are one detector on the
// simulator in T, and two wherever the nodes read T as the live unit (live
// runs, --unit live), so a run of one must not resume into the other.
func TestPlanHashDetectorAsRun(t *testing.T) {
	lat := trial.Constant(time.Millisecond)
	hash := func(det string, runtime string, liveUnit bool) string {
		t.Helper()
		d, err := trial.ParseDetector(det, lat)
		if err != nil {
			t.Fatal(err)
		}
		s := spec(t, "bully", "8", "random", "lowest", "1ms", 1)
		s.Detector, s.Runtime, s.LiveUnit = d, runtime, liveUnit
		return PlanHash([]*Spec{s})
	}
	if a, b := hash("heartbeat(1T,4T)", "", false), hash("heartbeat(1ms,4ms)", "", false); a != b {
		t.Errorf("simulator in T: heartbeat(1T,4T) hashes %s and heartbeat(1ms,4ms) %s; want one plan", a, b)
	}
	for _, c := range []struct {
		runtime  string
		liveUnit bool
	}{{"live", false}, {"", true}} {
		if a, b := hash("heartbeat(1T,4T)", c.runtime, c.liveUnit), hash("heartbeat(1ms,4ms)", c.runtime, c.liveUnit); a == b {
			t.Errorf("runtime %q, --unit live %v: heartbeat(1T,4T) and heartbeat(1ms,4ms) share hash %s; want two plans", c.runtime, c.liveUnit, a)
		}
	}
}
