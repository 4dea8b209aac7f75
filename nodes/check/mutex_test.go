package check

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

func mutexChecker(t *testing.T, n int, ordered bool) *Checker {
	t.Helper()
	ranks := make([]nodes.Rank, n)
	for i := range ranks {
		ranks[i] = nodes.RankOf(uint64(i + 1))
	}
	c := New(nodes.RanksOf(ranks))
	if err := c.WatchMutex(&nodes.Algorithm{Name: "m", Mutex: &nodes.Mutex{Ordered: ordered}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func phase(c *Checker, at time.Duration, p int, ph string) {
	c.Event(&trial.Event{At: at, Kind: trial.EvPhase, P: int32(p), Phase: ph})
}

// Safety: "never two processes in the section at once: a violation with
// the time and the processes".
func TestMutexTwoInSection(t *testing.T) {
	c := mutexChecker(t, 3, false)
	phase(c, 0, 0, nodes.PhaseWanted)
	phase(c, 0, 1, nodes.PhaseWanted)
	phase(c, 2, 0, nodes.PhaseHeld)
	phase(c, 3, 0, nodes.PhaseReleased)
	phase(c, 5, 1, nodes.PhaseHeld)
	if c.count != 0 {
		t.Fatalf("one at a time flagged: %v", c.list)
	}
	phase(c, 6, 2, nodes.PhaseHeld) // asked and entered in one event, while 1 is in
	v := c.Finish(new(trial.NewDecisions(3)), true, 10)
	if v.Violations != 1 || v.Recorded[0].Kind != "two-in-section" || v.Recorded[0].At != 6 ||
		len(v.Recorded[0].Procs) != 2 || v.Recorded[0].Procs[0] != 1 || v.Recorded[0].Procs[1] != 2 {
		t.Fatalf("got %d violations %v, want two-in-section at 6ns by 1 and 2", v.Violations, v.Recorded)
	}
	if len(v.Entries) != 3 || v.Entries[1].Sync != 2 || v.Entries[0].Sync != -1 || v.Entries[1].Entered-v.Entries[1].Requested != 5 {
		t.Fatalf("entries %+v: want the second with a client delay of 5 and a sync delay of 2", v.Entries)
	}
	// A crashed holder leaves the section with it.
	c = mutexChecker(t, 2, false)
	phase(c, 0, 0, nodes.PhaseHeld)
	c.Event(&trial.Event{At: 1, Kind: trial.EvCrash, P: 0})
	phase(c, 2, 1, nodes.PhaseHeld)
	if c.count != 0 {
		t.Fatalf("entry after the holder crashed flagged: %v", c.list)
	}
}

// Liveness: "every request eventually granted within the deadline";
// waiting when the run came to rest, nobody crashed and no fault struck
// is a deadlock.
func TestMutexLiveness(t *testing.T) {
	for _, tc := range []struct {
		quiet, crash bool
		want         string
		fault        bool
	}{{true, false, "deadlock", false}, {false, false, "starved", false}, {true, true, "starved", false}, {true, false, "starved", true}} {
		c := mutexChecker(t, 3, false)
		if tc.fault {
			c.Event(&trial.Event{At: 0, Kind: trial.EvFault, What: "partition(halves)[0|1,2]"})
		}
		phase(c, 0, 0, nodes.PhaseWanted)
		phase(c, 1, 1, nodes.PhaseWanted)
		phase(c, 2, 0, nodes.PhaseHeld)
		phase(c, 3, 0, nodes.PhaseReleased)
		if tc.crash {
			phase(c, 3, 2, nodes.PhaseWanted)
			c.Event(&trial.Event{At: 4, Kind: trial.EvCrash, P: 2}) // a crashed requester is owed nothing
		}
		v := c.Finish(new(trial.NewDecisions(3)), tc.quiet, 9)
		last := v.Recorded[len(v.Recorded)-1]
		if v.Live || v.Correct || last.Kind != tc.want || len(last.Procs) != 1 || last.Procs[0] != 1 {
			t.Fatalf("%+v: live %v, %v; want %s of process 1", tc, v.Live, v.Recorded, tc.want)
		}
	}
}

// Ordering: a request that happened before another enters first. Process
// 0 asks and tells process 1 (send 7 → delivery), which then asks; 1 must
// not enter while 0 waits. Process 2 asks concurrently: no order.
func TestMutexOrder(t *testing.T) {
	c := mutexChecker(t, 3, true)
	if !c.Kinds().Has(trial.EvSend) {
		t.Fatal("an ordered mutex checker does not want sends")
	}
	c.Event(&trial.Event{At: 0, Kind: trial.EvSend, P: 0, Q: 1, ID: 7})
	phase(c, 0, 0, nodes.PhaseWanted)
	phase(c, 0, 2, nodes.PhaseWanted)
	c.Event(&trial.Event{At: 1, Kind: trial.EvRecv, P: 0, Q: 1, ID: 7})
	phase(c, 1, 1, nodes.PhaseWanted)
	phase(c, 2, 2, nodes.PhaseHeld) // concurrent with 0's: fine
	phase(c, 3, 2, nodes.PhaseReleased)
	if c.count != 0 {
		t.Fatalf("concurrent requests flagged: %v", c.list)
	}
	phase(c, 4, 1, nodes.PhaseHeld)
	if c.count != 1 || c.list[0].Kind != "out-of-order" || c.list[0].Procs[0] != 1 || c.list[0].Procs[1] != 0 {
		t.Fatalf("got %v, want 1 out of order before 0", c.list)
	}
}
