package external

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/electbench/electbench/internal/cputime"
	"github.com/electbench/electbench/nodes"
)

// benchEnv is the least nodes.Env a node needs: a ring of n with this
// process at position 0, sends dropped.
type benchEnv struct {
	n   int
	rnd *rand.Rand
}

func (e *benchEnv) Self() nodes.Rank { return nodes.RankOf(1) }
func (e *benchEnv) Peers() []nodes.Peer {
	return []nodes.Peer{{ID: 1, Rank: nodes.RankOf(2)}}
}
func (e *benchEnv) After(p nodes.PeerID) (nodes.Peer, bool) {
	j := (int(p) + 1) % e.n
	return nodes.Peer{ID: nodes.PeerID(j), Rank: nodes.RankOf(uint64(j + 1))}, true
}
func (e *benchEnv) Now() time.Duration                    { return 0 }
func (e *benchEnv) Send(nodes.PeerID, nodes.Message)      {}
func (e *benchEnv) SetTimer(time.Duration, nodes.TimerID) {}
func (e *benchEnv) CancelTimer(nodes.TimerID)             {}
func (e *benchEnv) Decide(nodes.Rank)                     {}
func (e *benchEnv) Rand() *rand.Rand                      { return e.rnd }

// cpuSelf is this process's own CPU time (user and system), which leaves
// out the children's: the adapter's share of a step.
func cpuSelf(b *testing.B) time.Duration {
	d, ok := cputime.Self()
	if !ok {
		b.Fatal("this system does not give a process's CPU time (getrusage)")
	}
	return d
}

// BenchmarkAdapterStep measures one event through the adapter to a Go
// no-op node and back (the message's line out, "done" in): the round trip
// per event, and the adapter's own CPU per event (the harness process's
// CPU, which excludes the child's compute).
func BenchmarkAdapterStep(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	spec := Spec{Name: "noop", Command: []string{exe, "node-mode", "noop"}, Topology: nodes.RingUni}
	newMachine, _ := spec.newMachines(nodes.Config{N: 64, T: time.Millisecond})
	n := newMachine().(*node)
	defer n.Close()
	env := &benchEnv{n: 64, rnd: rand.New(rand.NewPCG(1, 2))}
	n.Start(env)
	k, _ := nodes.ExternalKind("ELECTION", nodes.ElectionClass)
	m := n.Adopt(k, []byte(`{"type":"ELECTION","rank":17,"node":"n63"}`))
	cpu := cpuSelf(b)
	b.ResetTimer()
	for b.Loop() {
		n.Receive(env, 63, m)
	}
	b.StopTimer()
	if n.err != nil {
		b.Fatal(n.err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpuSelf(b)-cpu)/float64(b.N), "adapter-cpu-ns/event")
}
