package bully

import (
	"maps"
	"testing"

	"github.com/electbench/electbench/nodes/nodetest"
)

// ALGORITHMS.md, "`bully` — Garcia-Molina 1982, as taught": the highest
// process crashed and, when the run starts, only the lowest has detected
// it: ELECTION N(N−1)/2, OK (N−1)(N−2)/2, COORDINATOR N−2, turnaround 4T
// (1T election + T1 at the second-highest + 1T coordinator). Five
// processes, ids 1..5 by position; the golden transcript is
// testdata/bully-crash-lowest.txt (go test ./nodes/bully -run Golden
// -rewrite regenerates it).
func TestGoldenBullyCrash(t *testing.T) {
	const size = 5
	n := nodetest.Build(t, "bully", nil, ascending(size)...)
	n.Crash(size - 1) // before the run: it never starts
	n.Start()
	n.Suspect(0, size-1)
	n.Initiate(0)
	n.Stabilize(100 * T)

	want := map[string]int{
		"ELECTION":    size * (size - 1) / 2,
		"OK":          (size - 1) * (size - 2) / 2,
		"COORDINATOR": size - 2,
	}
	if got := n.SentByKind(); !maps.Equal(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	if got := n.LastElection(); got != 4*T {
		t.Fatalf("turnaround %v, want 4T", got)
	}
	// T1 expires once, at the second-highest, which nobody answers.
	if got := n.Fired(); !maps.Equal(got, map[string]int{"T1": 1}) {
		t.Fatalf("timers fired %v, want T1 once", got)
	}
	for p := range size - 1 {
		n.ExpectDecided(p, size-1)
	}
	n.Golden("bully-crash-lowest")
}
