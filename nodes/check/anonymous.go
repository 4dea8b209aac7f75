package check

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// symmetryWatch judges a run on an anonymous ring, where every process
// has the same rank (ALGORITHMS.md, "Anonymous rings"). A process there
// can name no leader but the one id there is, its own, so every decision
// is a claim to lead. The lecture's argument is that a deterministic
// algorithm cannot break the symmetry: every process starts in the same
// state, sends the same messages and takes the same steps round after
// round. The harness cannot read a machine's state, so it watches what
// each process does: a fingerprint of every message it sends and every
// decision it makes, with the instant of each. Processes whose
// fingerprints agree at the end behaved identically at every instant.
type symmetryWatch struct {
	round time.Duration // one round, T: to say which round it stopped looking
	print []uint64      // by position: the fingerprint of everything it did
}

// WatchSymmetry makes the checker judge an anonymous ring (every rank the
// same): it fingerprints each process's sends and decisions, and Finish
// reports `symmetric` when they never differed, or else names what was
// lost: several leaders (safety) or none (liveness). round is T.
func (c *Checker) WatchSymmetry(round time.Duration) {
	c.symmetry = &symmetryWatch{round: round, print: make([]uint64, c.ranks.Len())}
}

// fold adds one step of process p at `at` to its fingerprint (FNV-1a over
// the words that describe it).
func (w *symmetryWatch) fold(p int32, at time.Duration, words ...uint64) {
	h := w.print[p]
	if h == 0 {
		h = 14695981039346656037
	}
	for _, x := range append(words, uint64(at)) {
		h ^= x
		h *= 1099511628211
	}
	w.print[p] = h
}

// symmetryEvent watches one event of an anonymous ring; the kinds are
// those Kinds adds for it. Decisions are folded in decided, which every
// path of a decision reaches.
func (c *Checker) symmetryEvent(e *trial.Event) {
	w := c.symmetry
	switch e.Kind {
	case trial.EvSend:
		// The kind and counters; the ranks are all the same here.
		w.fold(e.P, e.At, 1, uint64(e.Msg.Kind), uint64(e.Msg.A), uint64(e.Msg.B))
	case trial.EvCrash, trial.EvRestart:
		w.fold(e.P, e.At, 3, uint64(e.Kind))
	}
}

// finishSymmetry adds the anonymous ring's verdict to v: symmetric when
// every live process did the same at every instant (the first violation,
// so that it is the row's), several leaders when more than one live process
// decided (each decision claims the lead), no leader when none did.
func (c *Checker) finishSymmetry(v *Verdict, decisions *trial.Decisions, end time.Duration) {
	w := c.symmetry
	var claims int
	var first uint64
	same, seen := true, false
	for p, alive := range c.alive {
		if !alive {
			continue
		}
		if decisions.Get(p).Count > 0 {
			claims++
		}
		if !seen {
			first, seen = w.print[p], true
		}
		same = same && w.print[p] == first
	}
	var found []Violation
	if same && seen {
		found = append(found, Violation{At: end, Kind: "symmetric",
			Detail: fmt.Sprintf("every process sent and decided the same at every instant until round %d, when the run ended and the harness stopped looking: %d of %d decided they lead; no deterministic algorithm breaks the symmetry of an anonymous ring", w.roundOf(end), claims, len(w.print))})
	}
	switch {
	case claims > 1:
		v.Violations++
		v.Leader = "" // every process named the one id there is: itself
		found = append(found, Violation{At: end, Kind: "several-leaders",
			Detail: fmt.Sprintf("%d processes decided they lead (on an anonymous ring a process can name no leader but itself)", claims)})
	case claims == 0:
		found = append(found, Violation{At: end, Kind: "no-leader", Detail: "no process decided it leads"})
	}
	v.Recorded = append(found, v.Recorded...)
	// Symmetric is neither an election nor a plain failure to decide: the
	// lecture's impossibility, reported as not live rather than live with
	// N leaders. Several leaders without symmetry leave liveness as the run
	// had it: safety is what was lost.
	v.Correct = v.Correct && claims == 1 && !same
	v.Live = v.Live && claims > 0 && !same
}

// roundOf is the round at instant at: round k ends at k·T.
func (w *symmetryWatch) roundOf(at time.Duration) int64 {
	if w.round <= 0 {
		return 0
	}
	return int64((at + w.round - 1) / w.round)
}
