package check

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// The disruption figures of the families without terms (ALGORITHMS.md,
// "Disruption", "Without terms") on scripted traces, each figure computed
// by hand in the comments. Four processes at positions 0 to 3, ranks 1 to
// 4; times in ms.

var (
	testElection = nodes.RegisterKind("ELECTION", nodes.ElectionClass)
	testOK       = nodes.RegisterKind("OK", nodes.ElectionClass)
)

const ms = time.Millisecond

func fourProcesses() *Checker {
	return New(nodes.RanksOf([]nodes.Rank{nodes.RankOf(1), nodes.RankOf(2), nodes.RankOf(3), nodes.RankOf(4)}))
}

// decide has p decide the process at position l (rank l+1) at k ms.
func decide(c *Checker, k, p, l int) {
	c.Decided(time.Duration(k)*ms, p, nodes.RankOf(uint64(l+1)))
}

func figuresAt(c *Checker, k int) Disruption {
	d := trial.NewDecisions(c.ranks.Len())
	return c.Finish(&d, true, time.Duration(k)*ms).Disruption
}

// Two leaders (bridge-split-brain's bully): everyone decides 3 by 4 ms
// (first acknowledged then); 1 decides itself at 10 and 0 follows it at
// 12; 1 decides 3 at 15 and 0 at 18. stale_leader_s: 3 and 1 both believe
// they lead from 10 to 15, 5 ms. leaderless: from 10, when 1 stops
// believing 3, until 0 believes 3 again at 18, 8 ms. No ELECTION watched:
// elections 0.
func TestBeliefsStaleLeader(t *testing.T) {
	c := fourProcesses()
	decide(c, 1, 3, 3)
	for p := range 3 {
		decide(c, 2+p, p, 3)
	}
	decide(c, 10, 1, 1)
	decide(c, 12, 0, 1)
	decide(c, 15, 1, 3)
	decide(c, 18, 0, 3)
	if got, want := figuresAt(c, 30), (Disruption{StaleLeader: 5 * ms, Leaderless: 8 * ms}); got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// A crash's failover and a restart: everyone decides 3 by 4 ms; 3 crashes
// at 10; 2 decides itself at 14, 0 and 1 decide 2 at 15 and 16 (every
// live process believes 2: leaderless 10 to 16, 6 ms). 3 restarts at 20,
// knowing no leader (leaderless again), decides itself at 23 (2 and 3
// both lead), and 0, 1, 2 decide 3 at 25: stale 23 to 25, 2 ms;
// leaderless 20 to 25, 5 ms more, 11 ms in all.
func TestBeliefsFailoverRestart(t *testing.T) {
	c := fourProcesses()
	decide(c, 1, 3, 3)
	for p := range 3 {
		decide(c, 2+p, p, 3)
	}
	c.Crashed(10*ms, 3)
	decide(c, 14, 2, 2)
	decide(c, 15, 0, 2)
	decide(c, 16, 1, 2)
	c.Restarted(20*ms, 3)
	decide(c, 23, 3, 3)
	for p := range 3 {
		decide(c, 25, p, 3)
	}
	if got, want := figuresAt(c, 30), (Disruption{StaleLeader: 2 * ms, Leaderless: 11 * ms}); got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// The first acknowledgement: 3, 2 and 1 decide 3 by 3 ms while 0 has not
// decided; nothing is leaderless before 0 crashes at 5, when every live
// process believes 3. 3 crashes at 10; 2 decides itself at 12 and 1
// decides 2 at 14: leaderless 10 to 14, 4 ms. A decision for a crashed
// leader (1 for 3 at 13, a late COORDINATOR) changes nothing.
func TestBeliefsFirstLeader(t *testing.T) {
	c := fourProcesses()
	for p := 3; p >= 1; p-- {
		decide(c, 4-p, p, 3)
	}
	c.Crashed(5*ms, 0)
	c.Crashed(10*ms, 3)
	decide(c, 12, 2, 2)
	decide(c, 13, 1, 3)
	decide(c, 14, 1, 2)
	if got, want := figuresAt(c, 20), (Disruption{Leaderless: 4 * ms}); got != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

// Elections of an algorithm with a Candidacy kind: 0 sends ELECTION to 1,
// 2 and 3 at 1 ms (one election), 1 to 2 and 3 at 2 ms (one), 2 answers
// OK (none), 0 sends ELECTION again at 7 ms (its T2 ran out: one):
// elections 3. Without WatchElections the checker wants no send.
func TestBeliefsElections(t *testing.T) {
	c := fourProcesses()
	if c.Kinds().Has(trial.EvSend) {
		t.Fatal("a checker without a Candidacy kind wants sends")
	}
	c.WatchElections(&nodes.Algorithm{Name: "test", Candidacy: testElection})
	if !c.Kinds().Has(trial.EvSend) {
		t.Fatal("a checker counting elections wants no sends")
	}
	send := func(k, p, q int, kind nodes.Kind) {
		c.Event(&trial.Event{At: time.Duration(k) * ms, Kind: trial.EvSend, P: int32(p), Q: int32(q), Msg: nodes.Message{Kind: kind}})
	}
	for q := 1; q <= 3; q++ {
		send(1, 0, q, testElection)
	}
	send(2, 1, 2, testElection)
	send(2, 1, 3, testElection)
	send(3, 2, 1, testOK)
	for q := 1; q <= 3; q++ {
		send(7, 0, q, testElection)
	}
	if got := figuresAt(c, 10); got != (Disruption{Elections: 3}) {
		t.Fatalf("got %+v, want 3 elections", got)
	}
}
