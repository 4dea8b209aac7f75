package external_test

import (
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/external"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// reuseTrial runs trial k of the "reuse" node on n processes: it ends by
// its deadline with a PING in flight, each message stamped with k.
func reuseTrial(t *testing.T, a *nodes.Algorithm, n, k int) *trial.Record {
	t.Helper()
	cfg := trial.DefaultConfig()
	cfg.Algorithm, cfg.Ranks, cfg.Initiators = a, nodes.RanksOf(ascending(n)), []int{0}
	cfg.Params = nodes.Params{"trial": strconv.Itoa(k)}
	cfg.Deadline = 20 * time.Duration(n) * T
	cfg.Seed = uint64(k)
	rec, err := sim.Run(cfg)
	if err != nil {
		t.Fatalf("trial %d: %v", k, err)
	}
	decided := 0
	for _, d := range rec.Decisions.All() {
		if d.Leader == nodes.RankOf(uint64(n)) {
			decided++
		}
	}
	if decided != n || rec.Quiescent {
		t.Fatalf("trial %d: %d of %d nodes elected the highest, quiescent %v; want all, and a PING in flight at the deadline", k, decided, n, rec.Quiescent)
	}
	return rec
}

// NODE-PROTOCOL.md, "Kept across trials": a program that declares reuse is
// started once per node for the whole run, each trial giving it a fresh
// init; no message of a trial reaches the next, though every trial ends
// with messages in flight (the program exits, failing the trial, if one
// does).
func TestReuseKeepsPrograms(t *testing.T) {
	t.Cleanup(external.StopIdle)
	a := algorithm(t, "reuse", 0)
	const n, trials = 5, 6
	before := external.Spawned()
	for k := range trials {
		reuseTrial(t, a, n, k)
	}
	if got := external.Spawned() - before; got != n {
		t.Fatalf("%d programs started for %d trials of %d nodes; want %d, one per node", got, trials, n, n)
	}
	if idle := external.IdlePids(); len(idle) != n {
		t.Fatalf("%d programs kept after the run; want %d", len(idle), n)
	}
	external.StopIdle()
	if c := children(t); len(c) != 0 {
		t.Fatalf("children left once the kept programs are stopped: %v", c)
	}
}

// A program that does not declare reuse is started for every trial, as
// before, and none is kept.
func TestNoReuseRestarts(t *testing.T) {
	a := algorithm(t, "cr", 0)
	const n, trials = 4, 3
	before := external.Spawned()
	for range trials {
		if _, err := run(t, a, n, []int{0}); err != nil {
			t.Fatal(err)
		}
	}
	if got := external.Spawned() - before; got != n*trials {
		t.Fatalf("%d programs started for %d trials of %d nodes; want %d", got, trials, n, n*trials)
	}
	if idle := external.IdlePids(); len(idle) != 0 {
		t.Fatalf("%d programs kept; want none", len(idle))
	}
}

// A kept program that dies between trials is replaced by a fresh one: the
// next trial runs as if nothing happened, whether its death has been
// noticed yet (reaped) or not.
func TestKilledKeptProgramRestarted(t *testing.T) {
	t.Cleanup(external.StopIdle)
	a := algorithm(t, "reuse", 0)
	const n = 4
	reuseTrial(t, a, n, 0)
	for k, reap := range []bool{false, true, false} {
		idle := external.IdlePids()
		if len(idle) != n {
			t.Fatalf("before trial %d: %d programs kept, want %d", k+1, len(idle), n)
		}
		for _, pid := range idle[:2] {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		if reap {
			for _, pid := range idle[:2] {
				for !reaped(pid) {
					time.Sleep(time.Millisecond)
				}
			}
		}
		before := external.Spawned()
		reuseTrial(t, a, n, k+1)
		if got := external.Spawned() - before; got != 2 {
			t.Fatalf("trial %d: %d programs started after 2 of %d were killed; want 2", k+1, got, n)
		}
	}
}

// reaped reports whether process pid no longer exists, not even as a
// zombie.
func reaped(pid int) bool { return syscall.Kill(pid, 0) != nil }
