package ring

import (
	"math"

	"github.com/electbench/electbench/nodes"
)

// successor is a process's outgoing link on a unidirectional ring: where it
// sends, and the state ring repair needs (doc.go, "Ring repair"). hs uses it
// for its successor side and keeps its predecessor route beside it.
//
// Fault-free runs never suspect anyone and every message carries run 0, so
// that state lives behind a pointer that stays nil: the link costs two words
// per process and the hot path one nil check.
type successor struct {
	next nodes.PeerID // the successor, or the first unsuspected process beyond it
	// participating (chang-roberts only) is true when the process has
	// sent or forwarded an ELECTION in this run since the last ELECTED.
	// It lies here, in the padding between next and rep, rather than
	// after the link: a chang-roberts process is 16 bytes, not 24 (76 MB
	// of a ten-million ring's 477 MB of heap).
	participating bool
	rep           *repair
}

// repair is what a process knows once faults have touched its ring. It is
// allocated on the first suspicion or the first message of a restarted run.
type repair struct {
	// down are the processes this one's failure detector has suspected,
	// with their ranks (needed to recognise a message carrying one of them).
	down []nodes.Peer
	// epoch is the highest run number seen: 0 is the run the workload
	// started; every restart is one above the highest its starter had seen.
	epoch int64
	// own is the run this process started itself by restarting, until that
	// run's ELECTED passes (0: none), so that an Initiate meanwhile does not
	// start the same run twice.
	own int64
	// idle (lcr only) is true in a restarted run until this process has sent
	// its own id or forwarded a higher one in it. In run 0 every lcr process
	// sent its id in Start, so the zero value is right there.
	idle bool
}

// start reads the successor from the topology (RingUni: Peers() =
// [successor]; RingBi: [successor, predecessor]).
func (s *successor) start(env nodes.Env) { s.next = env.Peers()[0].ID }

// state returns the repair state, allocating it on first use (faults only).
func (s *successor) state() *repair {
	if s.rep == nil {
		s.rep = &repair{}
	}
	return s.rep
}

// epoch is the highest run number this process has seen.
func (s *successor) epoch() int64 {
	if s.rep == nil {
		return 0
	}
	return s.rep.epoch
}

// runOrder places a message's run against the highest run seen.
type runOrder int8

const (
	staleRun runOrder = iota - 1 // an older run, superseded: discard the message
	sameRun                      // the current run: the algorithm's own rules apply
	newerRun                     // a restarted run reaches this process for the first time
)

// order compares the run number m carries (Message.A) with the highest seen,
// and adopts it when it is newer (doc.go, rule 3); the caller then resets
// its per-run state, since the flags of an abandoned run must not swallow
// the new one. Every fault-free message carries run 0 and takes the first
// return. It reads m in place: copying a message, even into an inlined
// call, costs more than the whole test.
func (s *successor) order(m *nodes.Message) runOrder { return s.orderRun(m.A) }

// orderRun is order for a run number already taken out of its message (hs
// packs it into Message.A with the phase, hs.go).
func (s *successor) orderRun(run int64) runOrder {
	if run == 0 && s.rep == nil {
		return sameRun
	}
	r := s.state()
	switch {
	case run < r.epoch:
		return staleRun
	case run > r.epoch:
		r.epoch = run
		return newerRun
	}
	return sameRun
}

// restart opens a new run started by this process and returns its number:
// one above the highest it has seen, so every process that still holds an
// older run's state treats the new one as fresh. Concurrent restarts from
// the same run pick the same number and then meet under the algorithm's
// ordinary rules, as several initiators do.
//
// Run numbers, and restarting on a change of route or on an ELECTED of a
// suspected leader, extend ALGORITHMS.md's "Ring repair": its two rules
// alone do not deliver what it claims, "With a perfect detector this
// restores liveness after crashes" (doc.go, rules 3-7, says why and how).
func (s *successor) restart() int64 { return s.restartUpTo(math.MaxInt64) }

// restartUpTo is restart for an algorithm whose run numbers must stay at
// most limit (hs packs them into Message.A beside the phase). At the limit,
// reachable only through forged run numbers, the run is reopened rather
// than wrapped round.
func (s *successor) restartUpTo(limit int64) int64 {
	r := s.state()
	if r.epoch < limit {
		r.epoch++
	}
	r.own = r.epoch
	return r.epoch
}

// restarted reports whether this process started the current run itself by
// a restart: Initiate then has nothing left to start.
func (s *successor) restarted() bool {
	return s.rep != nil && s.rep.own != 0 && s.rep.own == s.rep.epoch
}

// settle records that the current run's ELECTED has reached this process:
// a run it started itself is over, and Initiate starts runs again.
func (s *successor) settle() {
	if s.rep != nil {
		s.rep.own = 0
	}
}

// suspects reports whether the process of rank r is suspected. It reads r
// in place: on the hot path, a fault-free run's, it only looks at rep.
func (s *successor) suspects(r *nodes.Rank) bool {
	if s.rep == nil {
		return false
	}
	for _, p := range s.rep.down {
		if p.Rank == *r {
			return true
		}
	}
	return false
}

func (s *successor) suspected(id nodes.PeerID) bool {
	if s.rep == nil {
		return false
	}
	for _, p := range s.rep.down {
		if p.ID == id {
			return true
		}
	}
	return false
}

// suspect records the detector's verdict on p and, if p is where this
// process sends, closes the ring over the gap: messages go to the next
// unsuspected process instead (ALGORITHMS.md, "Ring repair"). If every other
// process is suspected the walk ends at this process itself, which then
// sends to itself: alone on the ring, its own ELECTION comes straight back.
//
// It reports whether the route changed. The caller then starts a new run
// (doc.go, rule 4): whatever this process sent to the process now cut out
// may have been lost with it.
func (s *successor) suspect(env nodes.Env, p nodes.PeerID) (rerouted bool) {
	if s.suspected(p) {
		return false
	}
	peer, ok := s.find(env, p)
	if !ok {
		return false // not a process of this ring: nothing to route around
	}
	r := s.state()
	r.down = append(r.down, peer)
	self := env.Self()
	for s.suspected(s.next) {
		nx, ok := env.After(s.next)
		if !ok {
			return rerouted
		}
		s.next, rerouted = nx.ID, true
		if nx.Rank == self {
			return rerouted
		}
	}
	return rerouted
}

// find walks the ring from the successor to learn p's rank. The walk stops
// when it comes back to this process, so it takes at most N steps; it runs
// only on a suspicion, and the suspected process is nearly always the
// successor itself.
func (s *successor) find(env nodes.Env, p nodes.PeerID) (nodes.Peer, bool) {
	self := env.Self()
	peer := env.Peers()[0]
	for peer.ID != p {
		nx, ok := env.After(peer.ID)
		if !ok || nx.Rank == self {
			return nodes.Peer{}, false
		}
		peer = nx
	}
	return peer, true
}
