package ring

import (
	"testing"

	"github.com/electbench/electbench/nodes"
)

// Ring repair, ALGORITHMS.md:98-107.

// TestRepairRoutesAroundSuspects: "A process whose successor is suspected
// sends to the next unsuspected process instead (the ring closes over the
// gap)" (lines 99-100).
func TestRepairRoutesAroundSuspects(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts"} {
		n := newNet(t, name, ranks(10, 20, 30, 40, 50))
		sendsTo := func(want int) {
			t.Helper()
			n.initiate(0)
			n.expect(0, send(want, msg(kindElection, 10)))
			if name == "chang-roberts" {
				n.receive(0, 4, msg(kindElected, 50)) // clear the flag for the next probe
				n.take()
			}
		}
		sendsTo(1)
		n.suspect(0, 3) // not the successor: recorded, route unchanged
		sendsTo(1)
		n.suspect(0, 1)
		sendsTo(2)
		n.suspect(0, 2) // skips 2 and the already suspected 3
		sendsTo(4)
		n.suspect(0, 2) // twice: no change
		n.suspect(0, 99)
		sendsTo(4)
		n.suspect(0, 4) // everyone else suspected: the ring closes on itself
		sendsTo(0)
	}
}

// TestRepairAfterCrashAtStart: the highest process is down before the
// election and its predecessor suspects it; every live process elects the
// highest live one (line 103: "With a perfect detector this restores
// liveness after crashes").
//
// lcr is spared the arrangements in which the crashed process's predecessor
// is the highest live one: lcr sends its id in Start, before any detector can
// speak, so that id goes to the crashed process and is lost, and the id that
// should win never goes round.
func TestRepairAfterCrashAtStart(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr"} {
		arrangements := [][]uint64{{3, 9, 1, 7, 5, 2}, {6, 5, 4, 3, 2, 1}, {2, 6, 4, 1, 3, 5}}
		if name != "lcr" {
			arrangements = append(arrangements, []uint64{1, 2, 3, 4, 5, 6}, []uint64{3, 5, 6, 1, 2, 4})
		}
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
// ELECTION goes round; its predecessor suspects it, so when that ELECTION
// arrives it "stops forwarding that message and starts a new run" (lines
// 101-102), which elects the highest live process.
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
	// ELECTION(6) went 5 hops and stopped, then the new run: 5 ELECTION(5)
	// and 5 ELECTED(5) round the five live processes.
	if n.total != 15 {
		t.Fatalf("%d messages, want 15", n.total)
	}
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
