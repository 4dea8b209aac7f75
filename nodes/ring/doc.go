// Package ring implements the ring family of ALGORITHMS.md: `ring`,
// `chang-roberts`, `ring-initiator` and `lcr` on a unidirectional ring, and
// `hs` (Hirschberg–Sinclair) on a bidirectional one. Each algorithm is one
// file that registers itself with nodes.Register from init, so a runtime
// finds it by name after a blank import of this package.
//
// Every process is a small struct (a few words: the successor's handle, a
// flag, at most one remembered rank), because the simulator runs rings of a
// million processes; receiving a message is a few comparisons and at most one
// Send, with no allocation.
//
// Messages use these fields of nodes.Message (the rest stay zero):
//
//	ELECTION  Rank = r, the candidate; Aux = the run's initiator (ring-initiator only)
//	ELECTED   Rank = l, the leader;    Aux = the run's initiator (ring-initiator only)
//	PROBE     Rank = j, A = phase k, B = hop count d   (hs)
//	REPLY     Rank = j, A = phase k                     (hs)
//
// Every process calls Env.Decide when it learns the leader: the leader when
// its own ELECTION (or hs probe) comes back, the others when ELECTED passes.
// The leader does not decide again when its ELECTED returns.
//
// Ring repair (ALGORITHMS.md, "Ring repair") is implemented for the
// unidirectional algorithms: a process whose successor is suspected sends to
// the next unsuspected process (found with Env.After), and a process that
// suspects the process whose rank an ELECTION carries does not forward it but
// starts a new run. Suspicions are permanent: the contract has no way to
// withdraw one. hs ignores suspicions, because Env offers no way to walk the
// ring against the direction of travel to replace a suspected predecessor.
//
// Theory gives the figures of ALGORITHMS.md where a closed form exists; see
// theory.go for which configurations those are.
package ring
