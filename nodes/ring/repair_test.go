package ring

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// ALGORITHMS.md, "Ring repair".

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
		n.Initiate(0)
		n.expect(0, send(1, msg(kindElection, 10)))
		n.Suspect(0, 3) // not the successor: recorded, route unchanged
		n.expect(0)
		n.Receive(0, 4, msg(kindElection, 60))
		n.expect(0, send(1, msg(kindElection, 60)))
		n.Suspect(0, 1)
		n.expect(0, send(2, run(msg(kindElection, 10), 1)))
		n.Suspect(0, 2) // skips 2 and the already suspected 3
		n.expect(0, send(4, run(msg(kindElection, 10), 2)))
		n.Suspect(0, 2) // twice: no change
		n.Suspect(0, 99)
		n.expect(0)
		n.Receive(0, 4, run(msg(kindElection, 60), 2))
		n.expect(0, send(4, run(msg(kindElection, 60), 2)))
		n.Suspect(0, 4) // everyone else suspected: the ring closes on itself
		n.expect(0, send(0, run(msg(kindElection, 10), 3)))
	}
}

// TestRepairAfterCrashAtStart: the highest process is down before the
// election and its predecessor suspects it; every live process elects the
// highest live one ("Ring repair": "With a perfect detector this restores
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
			n.Crash(top)
			n.Start()
			n.Suspect(n.pred(top), top)
			for i := range rs {
				if i != top {
					n.Initiate(i)
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
	n.Initiate(top)
	n.At(2*T, func() { n.Crash(top); n.Suspect(n.pred(top), top) })
	n.run()
	n.checkElected(nodes.RankOf(5))
	if _, once := n.leaders(); !once {
		t.Fatalf("decisions %v: want exactly one per live process", n.decisions())
	}
	// ELECTION(6) went 5 hops and stopped; the new run: 5 ELECTION(5) and 5
	// ELECTED(5) round the five live processes.
	if n.Messages() != 15 {
		t.Fatalf("%d messages, want 15", n.Messages())
	}
}

// fourRing is the ring 10 → 50 → 30 → 70 seen from process 1 (id 50):
// predecessor 0, successor 2, and 70 beyond it. In ring-initiator every
// ELECTION and ELECTED below carries an initiator (aux), elsewhere none.
func fourRing(t *testing.T, name string) (n *net, m func(k nodes.Kind, r, aux uint64, run int64) nodes.Message) {
	n = newNet(t, name, ranks(10, 50, 30, 70))
	n.Take() // lcr sends at start
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
		n.Suspect(me, 3) // 70, not the successor: recorded, route unchanged
		n.expect(me)
		// Rule 2 (lines 101-102): ELECTION(70) is not forwarded; a new run,
		// numbered 1, carries this process (and, in ring-initiator, has it
		// as initiator).
		n.Receive(me, pred, m(kindElection, 70, 70, 0))
		n.expect(me, send(succ, m(kindElection, 50, 50, 1)))
		n.Initiate(me) // rule 6: this process already started run 1
		n.expect(me)
		// Rule 3: run 0 is over; its messages are dropped.
		n.Receive(me, pred, m(kindElection, 70, 70, 0))
		n.Receive(me, pred, m(kindElected, 70, 70, 0))
		n.expect(me)
		// Rule 5: the announced leader is suspected: no decision, and a new
		// run above the highest seen.
		n.Receive(me, pred, m(kindElected, 70, 70, 1))
		n.expect(me, send(succ, m(kindElection, 50, 50, 2)))
		n.ExpectDecided(me)
		// Its own run's ELECTION back: leader, in run 2; once its ELECTED
		// has come round, Initiate starts runs again.
		n.Receive(me, pred, m(kindElection, 50, 50, 2))
		n.expect(me, send(succ, m(kindElected, 50, 50, 2)))
		n.Receive(me, pred, m(kindElected, 50, 50, 2))
		n.expect(me)
		n.ExpectDecided(me, 50)
		if name != "lcr" { // lcr initiates only in Start
			n.Initiate(me)
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
		n.Suspect(me, succ)
		n.expect(me, send(3, m(kindElection, 50, 50, 1)))
		n.Suspect(me, succ) // already suspected: nothing
		n.expect(me)
	}
}

// TestRepairNewerRunIsFresh: rule 3 of doc.go. A newer run reaches a
// process as a fresh start whatever it did in the older one; within a run
// the algorithm's own rules apply.
func TestRepairNewerRunIsFresh(t *testing.T) {
	t.Run("ring", func(t *testing.T) {
		n, m := fourRing(t, "ring")
		n.Receive(me, pred, m(kindElection, 20, 0, 1))
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.Receive(me, pred, m(kindElection, 20, 0, 1)) // no flag: again
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.Receive(me, pred, m(kindElection, 70, 0, 1))
		n.expect(me, send(succ, m(kindElection, 70, 0, 1)))
	})
	t.Run("chang-roberts", func(t *testing.T) {
		n, m := fourRing(t, "chang-roberts")
		n.Initiate(me) // participating in run 0
		n.expect(me, send(succ, m(kindElection, 50, 0, 0)))
		n.Receive(me, pred, m(kindElection, 20, 0, 1)) // run 1: not participating yet
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.Receive(me, pred, m(kindElection, 40, 0, 1)) // now it is: swallowed
		n.expect(me)
		n.Receive(me, pred, m(kindElection, 20, 0, 0)) // run 0: dropped
		n.expect(me)
	})
	t.Run("ring-initiator", func(t *testing.T) {
		n, m := fourRing(t, "ring-initiator")
		n.Receive(me, pred, m(kindElection, 20, 60, 0)) // initiator 60, participating
		n.expect(me, send(succ, m(kindElection, 50, 60, 0)))
		// Run 1 outranks every initiator of run 0, even a lower one.
		n.Receive(me, pred, m(kindElection, 20, 10, 1))
		n.expect(me, send(succ, m(kindElection, 50, 10, 1)))
		n.Receive(me, pred, m(kindElection, 30, 10, 1)) // same run and initiator: swallowed
		n.Receive(me, pred, m(kindElection, 70, 5, 1))  // a lower initiator of run 1: discarded
		n.Receive(me, pred, m(kindElection, 70, 60, 0)) // run 0: dropped
		n.expect(me)
		n.Receive(me, pred, m(kindElection, 70, 20, 1)) // a higher initiator of run 1
		n.expect(me, send(succ, m(kindElection, 70, 20, 1)))
	})
	t.Run("lcr", func(t *testing.T) {
		n, m := fourRing(t, "lcr")
		n.Receive(me, pred, m(kindElection, 20, 0, 0)) // run 0: swallowed as ever
		n.expect(me)
		// Run 1 is a fresh start: the first smaller id is replaced by this
		// process's own, once.
		n.Receive(me, pred, m(kindElection, 20, 0, 1))
		n.expect(me, send(succ, m(kindElection, 50, 0, 1)))
		n.Receive(me, pred, m(kindElection, 40, 0, 1))
		n.expect(me)
		n.Receive(me, pred, m(kindElection, 70, 0, 1))
		n.expect(me, send(succ, m(kindElection, 70, 0, 1)))
		// Run 2 reaches it with a higher id first: forwarding it counts as
		// taking part, so a smaller id is swallowed after.
		n.Receive(me, pred, m(kindElection, 70, 0, 2))
		n.expect(me, send(succ, m(kindElection, 70, 0, 2)))
		n.Receive(me, pred, m(kindElection, 20, 0, 2))
		n.expect(me)
	})
}

// TestFalseSuspicionElectsLower reproduces the textbook N80 example (lines
// 103-105): a live process wrongly suspected is cut out of the ring and a
// lower process is elected.
func TestFalseSuspicionElectsLower(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator"} {
		n := newNet(t, name, ranks(10, 80, 30, 20))
		n.Suspect(0, 1) // 10 wrongly suspects its successor 80
		n.Initiate(2)
		n.run()
		n.ExpectDecided(0, 30)
		n.ExpectDecided(1) // 80 hears nothing
		n.ExpectDecided(2, 30)
		n.ExpectDecided(3, 30)
	}
}

// hsRun moves an hs PROBE or REPLY into run r: Message.A = r<<phaseBits |
// phase (hs.go, doc.go).
func hsRun(m nodes.Message, r int64) nodes.Message {
	m.A = r<<phaseBits | m.A&phaseMask
	return m
}

// fiveRing is the bidirectional ring 10 ⇄ 50 ⇄ 30 ⇄ 70 ⇄ 20 seen from
// process 1 (id 50): predecessor 0, successor 2, then 3 (70) and 4 (20).
// Start's probes are taken.
func fiveRing(t *testing.T) *net {
	n := newNet(t, "hs", ranks(10, 50, 30, 70, 20))
	n.Take()
	return n
}

// TestHSRepairRoutesBothWays: "A process whose successor is suspected sends
// to the next unsuspected process instead (the ring closes over the gap)"
// (ALGORITHMS.md, "Ring repair"), on both sides of a bidirectional ring: the
// predecessor side is found by walking forward round the ring (doc.go, rule
// 1). Every change of either route starts a new run (rule 4), whose
// phase-0 probes show where each side now goes.
func TestHSRepairRoutesBothWays(t *testing.T) {
	n := fiveRing(t)
	n.Suspect(me, 3) // 70, on neither side: recorded, routes unchanged
	n.Suspect(me, 99)
	n.expect(me)
	n.Receive(me, pred, probe(60, 2, 1)) // still run 0: on to the successor
	n.expect(me, send(succ, probe(60, 2, 2)))

	// Successor side: 2 and the suspected 3 are skipped; run 1.
	n.Suspect(me, succ)
	n.expect(me, send(4, hsRun(probe(50, 0, 1), 1)), send(pred, hsRun(probe(50, 0, 1), 1)))
	n.Suspect(me, succ) // twice: nothing
	n.expect(me)
	// Passing messages follow the new routes, across from where they came.
	n.Receive(me, pred, hsRun(probe(60, 2, 1), 1))
	n.expect(me, send(4, hsRun(probe(60, 2, 2), 1)))
	n.Receive(me, 4, hsRun(reply(60, 2), 1))
	n.expect(me, send(pred, hsRun(reply(60, 2), 1)))

	// Predecessor side: the nearest unsuspected process before this one is
	// 4, behind the suspected 0. Both sides are now 4, as with two
	// processes; run 2.
	n.Suspect(me, pred)
	n.expect(me, send(4, hsRun(probe(50, 0, 1), 2)), send(4, hsRun(probe(50, 0, 1), 2)))
	n.Receive(me, 4, hsRun(probe(60, 2, 1), 2))
	n.expect(me, send(4, hsRun(probe(60, 2, 2), 2)))

	// Every other process suspected: both routes are this process itself.
	// Its probe comes straight back: leader of run 3 (ALGORITHMS.md, "hs").
	n.Suspect(me, 4)
	self := hsRun(probe(50, 0, 1), 3)
	n.expect(me, send(me, self), send(me, self))
	n.Receive(me, me, self)
	n.expect(me, send(me, run(msg(kindElected, 50), 3)))
	n.Receive(me, me, self) // the other copy
	n.Receive(me, me, run(msg(kindElected, 50), 3))
	n.expect(me)
	n.ExpectDecided(me, 50)
}

// TestHSRepairStopsSuspected: a message carrying a suspected process is not
// passed on and a new run starts — "stops forwarding that message and
// starts a new run" (ALGORITHMS.md, "Ring repair") for PROBE and REPLY, and for
// ELECTED (doc.go, rule 5) — except a probe that this process swallows
// anyway.
func TestHSRepairStopsSuspected(t *testing.T) {
	n := fiveRing(t)
	n.Suspect(me, 3) // 70
	n.Suspect(me, 4) // 20
	n.expect(me)
	both := func(r int64) []envelope {
		m := hsRun(probe(50, 0, 1), r)
		return []envelope{send(succ, m), send(pred, m)}
	}
	n.Receive(me, pred, probe(70, 2, 1))
	n.expect(me, both(1)...)
	n.Receive(me, succ, hsRun(reply(70, 1), 1))
	n.expect(me, both(2)...)
	n.Receive(me, pred, hsRun(probe(20, 1, 1), 2)) // 20 < 50: swallowed, as ever
	n.expect(me)
	n.Receive(me, pred, run(msg(kindElected, 70), 2))
	n.expect(me, both(3)...)
	n.ExpectDecided(me)
	// Unsuspected processes' messages go on as before.
	n.Receive(me, pred, hsRun(probe(60, 1, 1), 3))
	n.expect(me, send(succ, hsRun(probe(60, 1, 2), 3)))
	n.Receive(me, pred, run(msg(kindElected, 60), 3))
	n.expect(me, send(succ, run(msg(kindElected, 60), 3)))
	n.ExpectDecided(me, 60)
}

// TestHSRepairRuns: doc.go, rule 3, for hs. A message of a newer run makes
// this process start that run afresh — phase 0, no replies, not leader —
// with its own phase-0 probes both ways, before the message is handled; a
// message of an older run is dropped; run numbers no process makes are
// dropped or saturate, and never panic.
func TestHSRepairRuns(t *testing.T) {
	n := trio(t, "hs")
	n.Receive(me, succ, reply(50, 0))
	n.Receive(me, pred, reply(50, 0))
	n.expect(me, send(succ, probe(50, 1, 1)), send(pred, probe(50, 1, 1)))
	n.Receive(me, succ, reply(50, 1)) // one of phase 1's two replies
	n.Receive(me, pred, probe(50, 1, 3))
	n.expect(me, send(succ, msg(kindElected, 50))) // leader of run 0
	n.ExpectDecided(me, 50)

	// Run 2 reaches it: own probes first, then the message as usual.
	own := hsRun(probe(50, 0, 1), 2)
	n.Receive(me, pred, hsRun(probe(70, 1, 1), 2))
	n.expect(me, send(succ, own), send(pred, own), send(succ, hsRun(probe(70, 1, 2), 2)))
	n.Receive(me, succ, hsRun(reply(50, 1), 2)) // phase is 0 again: ignored
	n.Receive(me, succ, hsRun(reply(50, 0), 2)) // replies count from 0 again: one of two
	n.expect(me)
	n.Receive(me, pred, hsRun(reply(50, 0), 2))
	n.expect(me, send(succ, hsRun(probe(50, 1, 1), 2)), send(pred, hsRun(probe(50, 1, 1), 2)))
	n.Receive(me, pred, hsRun(probe(50, 1, 3), 2)) // not leader of run 2 yet: it is now
	n.expect(me, send(succ, run(msg(kindElected, 50), 2)))
	n.ExpectDecided(me, 50, 50)

	// Older runs are over.
	n.Receive(me, pred, probe(70, 0, 1))
	n.Receive(me, pred, hsRun(probe(70, 3, 1), 1))
	n.Receive(me, succ, hsRun(reply(30, 0), 1))
	n.Receive(me, pred, run(msg(kindElected, 70), 1))
	// Negative run numbers, and an ELECTED run no hs process can number.
	n.Receive(me, pred, nodes.Message{Kind: kindProbe, Rank: nodes.RankOf(70), A: -1, B: 1})
	n.Receive(me, pred, nodes.Message{Kind: kindReply, Rank: nodes.RankOf(70), A: math.MinInt64})
	n.Receive(me, pred, run(msg(kindElected, 70), -3))
	n.Receive(me, pred, run(msg(kindElected, 70), maxRun+1))
	n.expect(me)
	n.ExpectDecided(me, 50, 50)

	// An ELECTED of a newer run: the run has elected, so no probes; the
	// leader is recorded and passed on.
	n.Receive(me, pred, run(msg(kindElected, 70), 5))
	n.expect(me, send(succ, run(msg(kindElected, 70), 5)))
	n.ExpectDecided(me, 50, 50, 70)

	// The highest run a PROBE can carry, then a restart from it: the run
	// number stays at maxRun rather than wrapping into the sign bit.
	top := nodes.Message{Kind: kindProbe, Rank: nodes.RankOf(70), A: math.MaxInt64, B: 1}
	n.Receive(me, pred, top)
	ownTop := hsRun(probe(50, 0, 1), maxRun)
	top.B = 2
	n.expect(me, send(succ, ownTop), send(pred, ownTop), send(succ, top))
	n.Suspect(me, succ)
	n.expect(me, send(pred, ownTop), send(pred, ownTop))
}

// TestHSRepairFromSuspectedSender: doc.go, rule 7. A PROBE or REPLY finds
// its way by the link it came over, so one that arrives from a process
// this one has cut out of its routes cannot be passed on: it starts a new
// run instead, unless it belongs to an older run.
//
// The end-to-end case: ring 20 ⇄ 10 ⇄ 80 ⇄ 30 ⇄ 40 ⇄ 90 ⇄ 50 ⇄ 60, where 80
// (position 2) probes in phase 2 of run 1 toward its predecessor 10, which
// passes the probe on to 20 (position 0) and crashes; 20 had not heard of
// run 1, and its detector speaks before the probe arrives (a slow link), so
// it too restarts into run 1 and the late probe belongs to its current run.
// Passed across, away from the successor side it came from, the probe would
// go to 20's new successor, 80 itself, which would take it for its own
// probe come round and decide 80 while 90 is alive.
func TestHSRepairFromSuspectedSender(t *testing.T) {
	t.Run("unit", func(t *testing.T) {
		n := fiveRing(t)
		n.Suspect(me, succ)
		n.expect(me, send(3, hsRun(probe(50, 0, 1), 1)), send(pred, hsRun(probe(50, 0, 1), 1)))
		n.Receive(me, succ, probe(60, 2, 1)) // run 0, from the cut-out successor: dropped as old
		n.expect(me)
		n.Receive(me, succ, hsRun(probe(60, 2, 1), 1)) // current run
		n.expect(me, send(3, hsRun(probe(50, 0, 1), 2)), send(pred, hsRun(probe(50, 0, 1), 2)))
		n.Receive(me, succ, hsRun(reply(10, 0), 3)) // newer run: one restart above it
		n.expect(me, send(3, hsRun(probe(50, 0, 1), 4)), send(pred, hsRun(probe(50, 0, 1), 4)))
	})
	t.Run("late probe", func(t *testing.T) {
		const x, f = 0, 1
		n := buildNet(t, "hs", ranks(20, 10, 80, 30, 40, 90, 50, 60))
		n.Crash(f)
		n.Start()
		for q := range n.Size() {
			if q != f {
				n.Suspect(q, f)
			}
		}
		n.Receive(x, f, hsRun(probe(80, 2, 2), 1))
		n.run()
		for p, ds := range n.decisions() {
			if slices.Contains(ds, nodes.RankOf(80)) {
				t.Fatalf("process %d decided 80 while 90 is alive (decisions %v)", p, n.decisions())
			}
		}
		n.checkElected(nodes.RankOf(90))
	})
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
		crashAt := map[int]int{} // position → its crash, in T
		for range 1 + r.IntN(size-1) {
			crashAt[r.IntN(size)] = 1 + r.IntN(3*size)
		}
		maxDelay := 1 + r.IntN(3*size)
		for _, name := range append(slices.Clone(repairedNames), "hs") {
			n := newNet(t, name, rs)
			for i := range size {
				if i == 0 || r.IntN(2) == 0 {
					n.Initiate(i)
				}
			}
			var live []nodes.Rank
			for c := range size {
				at, ok := crashAt[c]
				if !ok {
					live = append(live, rs[c])
					continue
				}
				n.At(time.Duration(at)*T, func() { n.Crash(c) })
				for q := range size {
					n.At(time.Duration(at+r.IntN(maxDelay))*T, func() {
						if q != c && !n.Crashed(q) {
							n.Suspect(q, c)
						}
					})
				}
			}
			n.run()
			n.checkElected(highest(live))
		}
	}
}
