package workloads

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/etcdraft"
	_ "github.com/electbench/electbench/nodes/quorum"
	"github.com/electbench/electbench/nodes/trial"
)

// quorumAlgorithms are the quorum family's algorithms, with etcd's Raft.
var quorumAlgorithms = []string{"raft", "chubby", "zookeeper", "etcd-raft"}

// Every run of a quorum algorithm is perpetual: judged at the deadline by a
// leader known by a majority, never by coming to rest; the row carries terms
// and split votes, turnaround to the first leader known by a majority, and
// failover as Raft's downtime.
func TestQuorumRows(t *testing.T) {
	const T = 5 * time.Millisecond // the quorum tests' mean latency
	for _, name := range quorumAlgorithms {
		t.Run(name, func(t *testing.T) {
			alg, variant, err := nodes.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			crash, err := ParseCrash("leader@leader-elected")
			if err != nil {
				t.Fatal(err)
			}
			ids, _ := ParseIDs("random")
			inits, _ := ParseInitiators("all")
			s := &Spec{Scenario: "test", Algos: []Algo{{Alg: alg, Variant: variant}}, Nodes: []int{5},
				IDs: ids, Initiators: inits, Trials: 5, Seed: 3, Latency: trial.Uniform{Lo: T / 2, Hi: 3 * T / 2}, Deadline: 600 * T,
				Crashes: []CrashSpec{crash}}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			for _, tr := range s.Plan() {
				row := RunSim(tr, nil)
				if row.Error != "" || !row.Live || !row.Correct || row.SafetyViolations != 0 {
					t.Fatalf("trial %d: %+v", tr.Trial, row)
				}
				if !row.Terms.IsSet() || row.Terms.Get() < 2 || !row.SplitVotes.IsSet() {
					t.Errorf("trial %d: terms %v, split votes %v; want at least the two elections", tr.Trial, row.Terms, row.SplitVotes)
				}
				if !row.TurnaroundS.IsSet() || !row.FailoverS.IsSet() || !row.DetectS.IsSet() || row.DetectS.Get() > row.FailoverS.Get() {
					t.Errorf("trial %d: turnaround %v, detect %v, failover %v", tr.Trial, row.TurnaroundS, row.DetectS, row.FailoverS)
				}
				if row.Messages >= row.MessagesByKind.Total() {
					t.Errorf("trial %d: %d election messages of %v: keep-alives must not count", tr.Trial, row.Messages, row.MessagesByKind)
				}
			}
		})
	}
}
