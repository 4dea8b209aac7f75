package quorum

import (
	"fmt"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
)

// group is one process's view of the complete topology: everyone, in
// ascending rank order, with this process at index self. Processes are
// numbered by that index in every tally.
type group struct {
	peers []nodes.Peer // Env.Peers(): every process, ascending rank; shared, never modified
	self  int          // this process's index in peers
}

func (g *group) start(env nodes.Env, name string) {
	g.peers = env.Peers()
	self := env.Self()
	i, ok := slices.BinarySearchFunc(g.peers, self, func(p nodes.Peer, r nodes.Rank) int { return p.Rank.Compare(r) })
	if !ok {
		panic(fmt.Sprintf("%s: process %v is missing from its own peer list (the complete topology lists every process)", name, self))
	}
	g.self = i
}

func (g *group) n() int { return len(g.peers) }

// indexOf finds the process of rank r sending from p: every message of the
// family carries its sender's rank (Raft's candidateId and leaderId), so the
// lookup is a binary search, checked against the link it came on. ok is
// false for a message that lies about its sender.
func (g *group) indexOf(r nodes.Rank, p nodes.PeerID) (int, bool) {
	i, ok := g.find(r)
	return i, ok && g.peers[i].ID == p
}

// find is the index of the process of rank r.
func (g *group) find(r nodes.Rank) (int, bool) {
	return slices.BinarySearchFunc(g.peers, r, func(q nodes.Peer, r nodes.Rank) int { return q.Rank.Compare(r) })
}

// broadcast sends m to every other process, in rank order. A send to a
// crashed process is still a message sent.
func (g *group) broadcast(env nodes.Env, m nodes.Message) {
	for i, q := range g.peers {
		if i != g.self {
			env.Send(q.ID, m)
		}
	}
}

// uniform draws a duration uniformly from [lo, hi] with the process's own
// seeded source.
func uniform(env nodes.Env, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(env.Rand().Int64N(int64(hi-lo)+1))
}

// durations reads the named duration parameters, in units of T or as Go
// durations, each of which must be positive.
func durations(cfg nodes.Config, declared []nodes.Param, into map[string]*time.Duration) error {
	for _, q := range declared {
		dst, ok := into[q.Name]
		if !ok {
			continue
		}
		d, err := cfg.Duration(q.Name, q.Default)
		if err != nil {
			return err
		}
		if d <= 0 {
			return fmt.Errorf("parameter %s: must be positive, got %v", q.Name, d)
		}
		*dst = d
	}
	return nil
}

// timing makes one of a configuration's durations a nodes.Quorum reads
// (Lease, Steady, Settle) from the algorithm's own parsing of its
// parameters, of, and what to read of the result and of the delay bound D
// (nodes.Config.Bound), get.
func timing[T any](of func(nodes.Config) (*T, error), get func(tm *T, d time.Duration) time.Duration) func(nodes.Config) (time.Duration, error) {
	return func(cfg nodes.Config) (time.Duration, error) {
		tm, err := of(cfg)
		if err != nil {
			return 0, err
		}
		return get(tm, cfg.Bound()), nil
	}
}
