package nodes

import "fmt"

// Group is one process's view of a complete topology: everyone, in
// ascending rank order, with this process at index Self. The families on
// the complete topology (bully, quorum) embed it and number processes by
// that index in their tallies.
type Group struct {
	Peers []Peer // Env.Peers(): every process, ascending rank; shared, never modified
	Self  int    // this process's index in Peers
}

// Init reads the topology from env; name is the algorithm's, for the
// panic a runtime that leaves this process out of its own peer list earns.
func (g *Group) Init(env Env, name string) {
	g.Peers = env.Peers()
	self := env.Self()
	i, ok := g.Find(self)
	if !ok {
		panic(fmt.Sprintf("%s: process %v is missing from its own peer list (the complete topology lists every process)", name, self))
	}
	g.Self = i
}

// N is the number of processes.
func (g *Group) N() int { return len(g.Peers) }

// IndexOf finds the process of rank r sending from p: every message of the
// families on this topology carries its sender's rank (Raft's candidateId
// and leaderId), so the lookup is a binary search, checked against the link
// it came on. ok is false for a message that lies about its sender.
func (g *Group) IndexOf(r Rank, p PeerID) (int, bool) {
	if len(g.Peers) <= scanPeers {
		// A small group is scanned by link, a word a peer, and one rank
		// compared: the binary search compared ranks at each of its
		// steps, 5% of a raft trial at N = 5 (issue 42).
		for i := range g.Peers {
			if g.Peers[i].ID == p {
				return i, g.Peers[i].Rank.Cmp(&r) == 0
			}
		}
		return 0, false
	}
	i, ok := g.Find(r)
	return i, ok && g.Peers[i].ID == p
}

// scanPeers is the largest group IndexOf scans rather than searches.
const scanPeers = 16

// Find is the index of the process of rank r. The search is written out
// rather than slices.BinarySearchFunc's: that one called its comparison
// through the generic dictionary, copying two 48-byte ranks each time, and
// was a twelfth of a raft trial at N = 5, every message looked up
// (issue 42); Cmp compares small ranks by one word, in place.
func (g *Group) Find(r Rank) (int, bool) {
	lo, hi := 0, len(g.Peers)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if g.Peers[m].Rank.Cmp(&r) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(g.Peers) && g.Peers[lo].Rank.Cmp(&r) == 0
}

// Broadcast sends m to every other process, in rank order. A send to a
// crashed process is still a message sent.
func (g *Group) Broadcast(env Env, m Message) {
	for i, q := range g.Peers {
		if i != g.Self {
			env.Send(q.ID, m)
		}
	}
}
