package ring

import (
	"math/rand/v2"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// Ring repair, ALGORITHMS.md:98-107.

// run sets the run number of a ring message (doc.go, "Ring repair").
func run(m nodes.Message, a int64) nodes.Message {
	m.A = a
	return m
}

// TestRepairRoutesAroundSuspects: "A process whose successor is suspected
// sends to the next unsuspected process instead (the ring closes over the
// gap)" (lines 99-100). Every change of route also starts a new run (rule 3
// of doc.go's "Ring repair"), whose first message shows where the process
// now sends.
//
// This test used to check that a suspicion sends nothing. That cannot hold
// with liveness: a process that has sent to its successor and then suspects
// it is, as far as it can tell, exactly the process whose message the crash
// swallowed, and no later event will ever come to prompt a resend.
func TestRepairRoutesAroundSuspects(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts"} {
		n := newNet(t, name, ranks(10, 20, 30, 40, 50))
		n.initiate(0)
		n.expect(0, send(1, msg(kindElection, 10)))
		n.suspect(0, 3) // not the successor: recorded, route unchanged
		n.expect(0)
		n.receive(0, 4, msg(kindElection, 60))
		n.expect(0, send(1, msg(kindElection, 60)))
		n.suspect(0, 1)
		n.expect(0, send(2, run(msg(kindElection, 10), 1)))
		n.suspect(0, 2) // skips 2 and the already suspected 3
		n.expect(0, send(4, run(msg(kindElection, 10), 2)))
		n.suspect(0, 2) // twice: no change
		n.suspect(0, 99)
		n.expect(0)
		n.receive(0, 4, run(msg(kindElection, 60), 2))
		n.expect(0, send(4, run(msg(kindElection, 60), 2)))
		n.suspect(0, 4) // everyone else suspected: the ring closes on itself
		n.expect(0, send(0, run(msg(kindElection, 10), 3)))
	}
}

// TestRepairAfterCrashAtStart: the highest process is down before the
// election and its predecessor suspects it; every live process elects the
// highest live one (line 103: "With a perfect detector this restores
// liveness after crashes").
//
// In lcr the crashed process's predecessor has already sent its id in
// Start, into the gap, before any detector could speak; the new run it
// starts when its route changes recovers it.
func TestRepairAfterCrashAtStart(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr"} {
		arrangements := [][]uint64{{3, 9, 1, 7, 5, 2}, {6, 5, 4, 3, 2, 1}, {2, 6, 4, 1, 3, 5},
			{1, 2, 3, 4, 5, 6}, {3, 5, 6, 1, 2, 4}}
		for _, ids := range arrangements {
			rs := ranks(ids...)
			top := 0
			for i, r := range rs {
				if rs[top].Less(r) {
					top = i
				}
			}
			n := buildNet(t, name, rs)
			n.crash(top)
			n.boot()
			n.suspect(n.pred(top), top)
			for i := range rs {
				if i != top {
					n.initiate(i)
				}
			}
			n.run()
			live := append(append([]nodes.Rank{}, rs[:top]...), rs[top+1:]...)
			n.checkElected(highest(live))
		}
	}
}

// TestRepairWhenCarriedProcessCrashes: the leader crashes while its own
// ELECTION goes round; its predecessor suspects it and starts a new run
// (its route changed, rule 4 of doc.go), so when that ELECTION arrives, now
// from an older run, it is not forwarded (lines 101-102: "stops forwarding
// that message and starts a new run"). The new run elects the highest live
// process.
func TestRepairWhenCarriedProcessCrashes(t *testing.T) {
	const size = 6
	ids := []uint64{1, 2, 3, 4, 5, 6} // ascending: the predecessor of 6 is 5
	top := size - 1
	n := newNet(t, "ring", ranks(ids...))
	n.initiate(top)
	n.at(2, func() { n.crash(top); n.suspect(n.pred(top), top) })
	n.run()
	n.checkElected(nodes.RankOf(5))
	if _, once := n.leaders(); !once {
		t.Fatalf("decisions %v: want exactly one per live process", n.decided)
	}
	// ELECTION(6) went 5 hops and stopped; the new run: 5 ELECTION(5) and 5
	// ELECTED(5) round the five live processes.
	if n.total != 15 {
		t.Fatalf("%d messages, want 15", n.total)
	}
}

// fourRing is the ring 10 → 50 → 30 → 70 seen from process 1 (id 50):
// predecessor 0, successor 2, and 70 beyond it. In ring-initiator every
// ELECTION and ELECTED below carries an initiator (aux), elsewhere none.
func fourRing(t *testing.T, name string) (n *net, m func(k nodes.Kind, r, aux uint64, run int64) nodes.Message) {
	n = newNet(t, name, ranks(10, 50, 30, 70))
	n.take() // lcr sends at start
	return n, func(k nodes.Kind, r, aux uint64, a int64) nodes.Message {
		msg := nodes.Message{Kind: k, Rank: nodes.RankOf(r), A: a}
		if name == "ring-initiator" {
			msg.Aux = nodes.RankOf(aux)
		}
		return msg
	}
}

// TestRepairRestartsRuns pins the rules that extend ALGORITHMS.md's "Ring
// repair" (doc.go, rules 2-6): a restart numbers its run one above the
// highest seen, older runs are dropped, ELECTED of a suspected leader is
// neither recorded nor forwarded, and Initiate does not start a run this
// process has already restarted.
func TestRepairRestartsRuns(t *testing.T) {
	for _, name := range repairedNames {
		n, m := fourRing(t, name)
		n.suspect(me, 3) // 70, not the successor: recorded, route unchanged
		n.expect(me)
		// Rule 2 (lines 101-102): ELECTION(70) is not forwarded; a new run,
		// numbered 1, carries this process (and, in ring-initiator, has it
		// as initiator).
		n.receive(me, pred, m(kindElection, 70, 70, 0))
		n.expect(me, send(succ, m(kindElection, 50, 50, 1)))
		n.initiate(me) // rule 6: this process already started run 1
		n.expect(me)
		// Rule 3: run 0 is over; its messages are dropped.
		n.receive(me, pred, m(kindElection, 70, 70, 0))
		n.receive(me, pred, m(kindElected, 70, 70, 0))
		n.expect(me)
		// Rule 5: the announced leader is suspected: no decision, and a new
		// run above the highest seen.
		n.receive(me, pred, m(kindElected, 70, 70, 1))
		n.expect(me, send(succ, m(kindElection, 50, 50, 2)))
		n.expectDecided(me)
		// Its own run's ELECTION back: leader, in run 2; once its ELECTED
		// has come round, Initiate starts runs again.
		n.receive(me, pred, m(kindElection, 50, 50, 2))
		n.expect(me, send(succ, m(kindElected, 50, 50, 2)))
		n.receive(me, pred, m(kindElected, 50, 50, 2))
		n.expect(me)
		n.expectDecided(me, 50)
		if name != "lcr" { // lcr initiates only in Start
			n.initiate(me)
			n.expect(me, send(succ, m(kindElection, 50, 50, 2)))
		}
	}
}

// repairedNames are the algorithms with ring repair.
var repairedNames = []string{"ring", "chang-roberts", "ring-initiator", "lcr"}

// TestRepairRouteChangeRestarts: rule 4 of doc.go, for every repaired
// algorithm: whatever was sent to the successor may have died with it.
func TestRepairRouteChangeRestarts(t *testing.T) {
	for _, name := range repairedNames {
		n, m := fourRing(t, name)
		n.suspect(me, succ)
		n.expect(me, send(3, m(kindElection, 50, 50, 1)))
		n.suspect(me, succ) // already suspected: nothing
		n.expect(me)
	}
}

// TestRepairNewerRunIsFresh: rule 3 of doc.go. A newer run reaches a
// process as a fresh start whatever it did in the older one; within a run
// the algorithm's own rules apply.
func TestRepairNewerRunIsFresh(t *testing.T) {
	t.Run("ring", func(t *testing.T) {
		n, m := fourRing(t, "ring")
		n.receive(me, pred, m(kindElection, 20, 0, 1))
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.receive(me, pred, m(kindElection, 20, 0, 1)) // no flag: again
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.receive(me, pred, m(kindElection, 70, 0, 1))
		n.expect(me, send(succ, m(kindElection, 70, 0, 1)))
	})
	t.Run("chang-roberts", func(t *testing.T) {
		n, m := fourRing(t, "chang-roberts")
		n.initiate(me) // participating in run 0
		n.expect(me, send(succ, m(kindElection, 50, 0, 0)))
		n.receive(me, pred, m(kindElection, 20, 0, 1)) // run 1: not participating yet
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.receive(me, pred, m(kindElection, 40, 0, 1)) // now it is: swallowed
		n.expect(me)
		n.receive(me, pred, m(kindElection, 20, 0, 0)) // run 0: dropped
		n.expect(me)
	})
	t.Run("ring-initiator", func(t *testing.T) {
		n, m := fourRing(t, "ring-initiator")
		n.receive(me, pred, m(kindElection, 20, 60, 0)) // initiator 60, participating
		n.expect(me, send(succ, m(kindElection, 50, 60, 0)))
		// Run 1 outranks every initiator of run 0, even a lower one.
		n.receive(me, pred, m(kindElection, 20, 10, 1))
		n.expect(me, send(succ, m(kindElection, 50, 10, 1)))
		n.receive(me, pred, m(kindElection, 30, 10, 1)) // same run and initiator: swallowed
		n.receive(me, pred, m(kindElection, 70, 5, 1))  // a lower initiator of run 1: discarded
		n.receive(me, pred, m(kindElection, 70, 60, 0)) // run 0: dropped
		n.expect(me)
		n.receive(me, pred, m(kindElection, 70, 20, 1)) // a higher initiator of run 1
		n.expect(me, send(succ, m(kindElection, 70, 20, 1)))
	})
	t.Run("lcr", func(t *testing.T) {
		n, m := fourRing(t, "lcr")
		n.receive(me, pred, m(kindElection, 20, 0, 0)) // run 0: swallowed as ever
		n.expect(me)
		// Run 1 is a fresh start: the first smaller id is replaced by this
		// process's own, once.
		n.receive(me, pred, m(kindElection, 20, 0, 1))
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.receive(me, pred, m(kindElection, 40, 0, 1))
		n.expect(me)
		n.receive(me, pred, m(kindElection, 70, 0, 1))
		n.expect(me, send(succ, m(kindElection, 70, 0, 1)))
		// Run 2 reaches it with a higher id first: forwarding it counts as
		// taking part, so a smaller id is swallowed after.
		n.receive(me, pred, m(kindElection, 70, 0, 2))
		n.expect(me, send(succ, m(kindElection, 70, 0, 2)))
		n.receive(me, pred, m(kindElection, 20, 0, 2))
		n.expect(me)
	})
}

// TestFalseSuspicionElectsLower reproduces the textbook N80 example (lines
// 103-105): a live process wrongly suspected is cut out of the ring and a
// lower process is elected.
func TestFalseSuspicionElectsLower(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator"} {
		n := newNet(t, name, ranks(10, 80, 30, 20))
		n.suspect(0, 1) // 10 wrongly suspects its successor 80
		n.initiate(2)
		n.run()
		n.expectDecided(0, 30)
		n.expectDecided(1) // 80 hears nothing
		n.expectDecided(2, 30)
		n.expectDecided(3, 30)
	}
}

// TestHSIgnoresSuspicions: hs has no repair (doc.go); a suspicion changes
// nothing it sends.
func TestHSIgnoresSuspicions(t *testing.T) {
	n := trio(t, "hs")
	n.suspect(me, succ)
	n.receive(me, pred, probe(70, 2, 1))
	n.expect(me, send(succ, probe(70, 2, 2)))
}

// TestRepairUnevenDetection: doc.go's argument needs only a detector that
// eventually suspects every crashed process and never a live one, not the
// same delay everywhere. Crashes of up to N−1 processes, each suspected by
// every live process after its own random delay, on every repaired
// algorithm: the highest live process is elected and known by all.
func TestRepairUnevenDetection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		size := 3 + r.IntN(8)
		ids := make([]uint64, size)
		for i := range ids {
			ids[i] = uint64(i + 1)
		}
		r.Shuffle(size, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		rs := ranks(ids...)
		crashAt := map[int]int{} // position → round of its crash
		for range 1 + r.IntN(size-1) {
			crashAt[r.IntN(size)] = 1 + r.IntN(3*size)
		}
		maxDelay := 1 + r.IntN(3*size)
		for _, name := range repairedNames {
			n := newNet(t, name, rs)
			for i := range size {
				if i == 0 || r.IntN(2) == 0 {
					n.initiate(i)
				}
			}
			var live []nodes.Rank
			for c := range size {
				at, ok := crashAt[c]
				if !ok {
					live = append(live, rs[c])
					continue
				}
				n.at(at, func() { n.crash(c) })
				for q := range size {
					n.at(at+r.IntN(maxDelay), func() {
						if q != c && !n.crashed[q] {
							n.suspect(q, c)
						}
					})
				}
			}
			n.run()
			n.checkElected(highest(live))
		}
	}
}
