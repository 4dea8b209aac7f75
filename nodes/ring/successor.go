package ring

import "github.com/electbench/electbench/nodes"

// successor is a process's outgoing link on a unidirectional ring: where it
// sends, and whom its failure detector has suspected.
//
// Fault-free runs never suspect anyone, so the suspicions live behind a
// pointer that stays nil: the link costs two words per process and the hot
// path one nil check.
type successor struct {
	next nodes.PeerID // the successor, or the first unsuspected process beyond it
	down *suspicions
}

// suspicions are the processes this one's failure detector has suspected,
// with their ranks (needed to recognise an ELECTION carrying one of them).
type suspicions struct{ peers []nodes.Peer }

// start reads the successor from the topology (RingUni: Peers() =
// [successor]; RingBi: [successor, predecessor]).
func (s *successor) start(env nodes.Env) { s.next = env.Peers()[0].ID }

// suspects reports whether the process of rank r is suspected.
func (s *successor) suspects(r nodes.Rank) bool {
	if s.down == nil {
		return false
	}
	for _, p := range s.down.peers {
		if p.Rank == r {
			return true
		}
	}
	return false
}

func (s *successor) suspected(id nodes.PeerID) bool {
	if s.down == nil {
		return false
	}
	for _, p := range s.down.peers {
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
func (s *successor) suspect(env nodes.Env, p nodes.PeerID) {
	if s.suspected(p) {
		return
	}
	peer, ok := s.find(env, p)
	if !ok {
		return // not a process of this ring: nothing to route around
	}
	if s.down == nil {
		s.down = &suspicions{}
	}
	s.down.peers = append(s.down.peers, peer)
	self := env.Self()
	for s.suspected(s.next) {
		nx, ok := env.After(s.next)
		if !ok {
			return
		}
		s.next = nx.ID
		if nx.Rank == self {
			return
		}
	}
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
