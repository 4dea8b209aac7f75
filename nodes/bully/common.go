package bully

import (
	"fmt"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
)

// The message kinds of the bully family; doc.go lists the fields each uses.
// ELECTION and COORDINATOR are shared by name with every other family.
var (
	kindElection    = nodes.RegisterKind("ELECTION", nodes.ElectionClass)
	kindOK          = nodes.RegisterKind("OK", nodes.ElectionClass)
	kindCoordinator = nodes.RegisterKind("COORDINATOR", nodes.ElectionClass)
	kindHalt        = nodes.RegisterKind("HALT", nodes.ElectionClass)
	kindAck         = nodes.RegisterKind("ACK", nodes.ElectionClass)
	kindAgree       = nodes.RegisterKind("AGREE", nodes.ElectionClass)
	kindDisagree    = nodes.RegisterKind("DISAGREE", nodes.ElectionClass)
)

// The timers of the family: all of them wait on the election, so all count in
// `timeouts`.
var (
	timerT1       = nodes.RegisterTimer("T1", nodes.ElectionClass)            // bully: waiting for an OK
	timerT2       = nodes.RegisterTimer("T2", nodes.ElectionClass)            // bully: waiting for COORDINATOR after an OK
	timerAckWait  = nodes.RegisterTimer("ACK_WAIT", nodes.ElectionClass)      // two-phase winner: waiting for ACKs
	timerElection = nodes.RegisterTimer("ELECTION_WAIT", nodes.ElectionClass) // multicast: waiting for a DISAGREE
)

func coordinator(l nodes.Rank) nodes.Message { return nodes.Message{Kind: kindCoordinator, Rank: l} }

// group is one process's view of a complete topology: everyone, in ascending
// rank order, with this process at index self, the coordinator it believes
// in, and the processes its failure detector has suspected.
//
// Fault-free runs never suspect anyone, so the suspicion bitset stays nil and
// the view costs a slice header and a few words per process.
type group struct {
	nodes.Group
	leader nodes.Rank // the coordinator this process believes in
	down   []uint64   // suspected processes by index in Peers; nil until the first suspicion
}

// start reads the topology. Every process begins believing in the highest
// process, without deciding: Decide records what the protocol taught it, and
// nothing has been taught yet.
func (g *group) start(env nodes.Env) {
	g.Init(env, "bully")
	g.leader = g.Peers[len(g.Peers)-1].Rank
}

func (g *group) lower() []nodes.Peer  { return g.Peers[:g.Self] }
func (g *group) higher() []nodes.Peer { return g.Peers[g.Self+1:] }

// others is every process but this one, as two runs around it.
func (g *group) others() (below, above []nodes.Peer) { return g.lower(), g.higher() }

func (g *group) suspected(i int) bool {
	return g.down != nil && g.down[i/64]&(1<<(i%64)) != 0
}

// higherAlive reports whether some process of higher rank is unsuspected.
func (g *group) higherAlive() bool {
	n := len(g.Peers)
	if g.down == nil {
		return g.Self < n-1
	}
	for i := g.Self + 1; i < n; i++ {
		if !g.suspected(i) {
			return true
		}
	}
	return false
}

// mark records the detector's verdict on p and returns p's index. newly is
// false when p was already suspected, is this process itself, or is not in
// the topology. Suspicions are permanent: the contract cannot withdraw one.
// Finding p is a scan, but it happens once per suspicion, never per message.
func (g *group) mark(p nodes.PeerID) (i int, newly bool) {
	i = slices.IndexFunc(g.Peers, func(q nodes.Peer) bool { return q.ID == p })
	if i < 0 || i == g.Self || g.suspected(i) {
		return i, false
	}
	if g.down == nil {
		g.down = make([]uint64, (len(g.Peers)+63)/64)
	}
	g.down[i/64] |= 1 << (i % 64)
	return i, true
}

// bitset is a set of small integers, reused across rounds.
type bitset []uint64

func (b *bitset) reset(n int) {
	w := (n + 63) / 64
	if cap(*b) < w {
		*b = make(bitset, w)
		return
	}
	*b = (*b)[:w]
	clear(*b)
}

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) add(i int)      { b[i/64] |= 1 << (i % 64) }

// duration reads a timer parameter, which must be positive. A positive value
// below the reference model's round trip is accepted on purpose: ALGORITHMS.md
// wants a short T1 to be runnable so that the checker can catch what it
// breaks.
func duration(cfg nodes.Config, declared []nodes.Param, name string) (time.Duration, error) {
	i := slices.IndexFunc(declared, func(q nodes.Param) bool { return q.Name == name })
	d, err := cfg.Duration(name, declared[i].Default)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("parameter %s: must be positive, got %v", name, d)
	}
	return d, nil
}
