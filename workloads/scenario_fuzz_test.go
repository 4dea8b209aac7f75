package workloads

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
)

// FuzzScenario: whatever a scenario file says, checking it never panics,
// and a small valid one runs its first trial to the end without panicking
// (the simulator's fault engine included) within a bounded virtual time.
func FuzzScenario(f *testing.F) {
	for _, name := range chaos.BuiltinNames() {
		b, _ := chaos.Builtin(name)
		f.Add(b)
	}
	bad, _ := filepath.Glob("../chaos/testdata/bad/*.*")
	for _, p := range bad {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`name: f
algorithms: [bully, ring]
nodes: 5
trials: 1
detector: heartbeat(1T,3T)
faults:
  - {kind: pause, target: leader, at: leader-elected, for: 9T}
  - {kind: crash, target: random(2), at: after-messages(3), for: 4T}
  - {kind: partition, shape: bridge, at: election-start+1T, for: 6T}
  - {kind: reorder, probability: 0.5, target: 0, direction: in}
  - {kind: bandwidth, rate: 1, toxicity: 0.3}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			return
		}
		specs, err := ParseScenarios("fuzz.yaml", data)
		if err != nil {
			return
		}
		for _, s := range specs {
			if s.IDs.Pow != nil {
				continue // minting identities is not this target's business
			}
			plan := s.Plan()
			if len(plan) == 0 || plan[0].Nodes > 12 {
				continue
			}
			s.Deadline = min(max(s.Deadline, 0), 3000*s.Latency.Mean(), 10*time.Second)
			if s.Deadline == 0 {
				s.Deadline = min(3000*s.Latency.Mean(), 10*time.Second)
			}
			if row := RunSim(plan[0], nil); len(row.Error) > 6 && row.Error[:6] == "panic:" {
				t.Fatalf("trial panicked: %s", row.Error)
			}
		}
	})
}
