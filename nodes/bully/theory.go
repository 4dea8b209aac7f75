package bully

import (
	"slices"

	"github.com/electbench/electbench/nodes"
)

// The reference figures of ALGORITHMS.md, and the ones the rules imply for
// the same configurations, under the reference model: every message takes
// exactly T, deliveries before timers at the same instant, default timers
// (T1 = ack-wait = timeout = settle = 2D = 2T, T2 = 5D = 5T: under the
// reference model the delay bound D is T, and no ELECTION reaches a settling
// process in these configurations; TheoryInput does not carry parameters, so
// a run with other values must not be compared with these).
//
// A configuration is covered when it has exactly one initiator and either
// nobody crashed or exactly the highest process crashed before the run (the
// initiator's detector suspects it at time 0, and no other detector suspects
// it before the run reaches that process). Everything is counted in terms of
// a, the number of processes ranked above the initiator, the crashed one
// included. Every function returns the zero Theory otherwise, when in.Faulty,
// and when no election message would be delivered at all (N = 2 with the
// highest crashed), since turnaround is then undefined.

// setup is what the figures need to know about a configuration.
type setup struct {
	n       int
	a       int  // processes ranked above the initiator
	crashed bool // the highest process crashed before the run
}

func setupOf(in nodes.TheoryInput) (setup, bool) {
	ranks := &in.Ranks
	n := ranks.Len()
	if in.Faulty || n < 2 || (in.N != 0 && in.N != n) || len(in.Initiators) != 1 {
		return setup{}, false
	}
	init := in.Initiators[0]
	if init < 0 || init >= n {
		return setup{}, false
	}
	if !distinct(ranks) {
		return setup{}, false
	}
	// The ranks are read in place: a row asks twice a trial (the
	// fault-free figure and the one with its crash), and two copies of
	// them, one sorted, were most of a 5-process trial's theory (issue 42).
	highest := 0
	s := setup{n: n}
	for i := range n {
		if ranks.Cmp(i, highest) > 0 {
			highest = i
		}
		if ranks.Cmp(init, i) < 0 {
			s.a++
		}
	}
	switch {
	case len(in.Crashed) == 0:
	case len(in.Crashed) == 1 && in.Crashed[0] == highest && init != highest && n >= 3:
		s.crashed = true
	default:
		return setup{}, false
	}
	return s, true
}

// bullyTheory. With the highest crashed (ALGORITHMS.md's textbook case):
//
//   - a = 1, the second-highest initiates: it suspects everyone above it and
//     announces at once, N−2 COORDINATOR in 1T.
//   - a ≥ 2: the initiator's ELECTION wave and the one every process above
//     it starts on receiving it make a + (a−1)a/2 = a(a+1)/2 ELECTION; the
//     live receivers answer (a−1)a/2 OK; the second-highest hears nothing
//     from above, and at 3T its T1 (armed at 1T) makes it announce: N−2
//     COORDINATOR, delivered at 4T. Lowest initiator, a = N−1: N(N−1)/2 +
//     (N−1)(N−2)/2 + (N−2), turnaround 4T.
//
// With nobody crashed the highest wins as soon as an ELECTION reaches it
// and, by the rule "start an election unless one is already running",
// announces again on every later ELECTION: it hears the initiator at 1T and
// the a−1 processes between them at 2T, so COORDINATOR = (N−1)a (N−1 when
// the highest initiates, a = 0). ELECTION = OK = a(a+1)/2. Turnaround: 1T
// (a = 0), 2T (a = 1), 3T (a ≥ 2: the OKs and announcements of the second
// wave).
//
// two-phase: the winner halts the N−1 (N−2 with the highest crashed) lower
// processes, all live, and announces once their ACKs are in, 2T later; an
// ELECTION reaching it meanwhile is answered but starts nothing, so it
// announces only once. That adds 2(N−2) or 2(N−1) HALT and ACK to the
// classic counts (minus the repeated COORDINATORs) and 2T to the turnaround.
func bullyTheory(in nodes.TheoryInput) nodes.Theory {
	s, ok := setupOf(in)
	if !ok {
		return nodes.Theory{}
	}
	n, a := int64(s.n), int64(s.a)
	twoPhase := in.Variant == "two-phase"
	if !twoPhase && in.Variant != "" && in.Variant != "classic" {
		return nodes.Theory{}
	}
	var t nodes.Theory
	switch {
	case s.crashed && a == 1:
		t = nodes.Theory{Messages: n - 2, Turnaround: 1}
	case s.crashed:
		t = nodes.Theory{Messages: a*(a+1)/2 + (a-1)*a/2 + n - 2, Turnaround: 4}
	case a == 0:
		t = nodes.Theory{Messages: n - 1, Turnaround: 1}
	case !twoPhase:
		t = nodes.Theory{Messages: a*(a+1) + (n-1)*a, Turnaround: min(float64(a)+1, 3)}
	default:
		t = nodes.Theory{Messages: a*(a+1) + n - 1, Turnaround: 2}
	}
	if twoPhase {
		lower := n - 1
		if s.crashed {
			lower = n - 2
		}
		t.Messages += 2 * lower
		t.Turnaround += 2
	}
	return t
}

// multicastTheory. The initiator's ELECTION reaches everyone at 1T; the a−1
// (crash) or a live processes above it disagree and start their own, so
// there are 1 + (a−1) or 1 + a ELECTION waves of N−1 each. In variant agree
// every live receiver answers each ELECTION (AGREE upward, DISAGREE
// downward); in no-agree only the DISAGREEs are sent: one to the initiator
// from each live process above it, and one per pair of those processes. The
// highest live process wins 2T after it started (by AGREE from all, or by its
// timer when a crashed process cannot agree) and its N−1 COORDINATOR arrive
// 1T later: turnaround 4T, or 3T when the initiator itself is the highest
// live process.
func multicastTheory(in nodes.TheoryInput) nodes.Theory {
	s, ok := setupOf(in)
	if !ok {
		return nodes.Theory{}
	}
	agree := in.Variant == "" || in.Variant == "agree"
	if !agree && in.Variant != "no-agree" {
		return nodes.Theory{}
	}
	n := int64(s.n)
	starters := int64(s.a) // live processes above the initiator
	live := n - 1          // live processes besides the sender
	if s.crashed {
		starters--
		live--
	}
	t := nodes.Theory{Turnaround: 4}
	if starters == 0 {
		t.Turnaround = 3
	}
	waves := 1 + starters
	t.Messages = waves*(n-1) + (n - 1) // ELECTION, COORDINATOR
	if agree {
		t.Messages += waves * live
	} else {
		t.Messages += starters + starters*(starters-1)/2
	}
	return t
}

// distinct reports whether no two ranks are equal: by comparing each pair
// in a small run, copying nothing; by sorting a copy above 16 processes.
func distinct(ranks *nodes.Ranks) bool {
	n := ranks.Len()
	if n <= 16 {
		for i := range n {
			for j := range i {
				if ranks.Cmp(i, j) == 0 {
					return false
				}
			}
		}
		return true
	}
	sorted := slices.SortedFunc(slices.Values(ranks.Slice()), nodes.Rank.Compare) // Slice may be the ranks themselves
	return len(slices.Compact(sorted)) == n
}
