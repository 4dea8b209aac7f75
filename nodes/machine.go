package nodes

import (
	"math/rand/v2"
	"slices"
	"time"
)

// PeerID is an opaque handle to another process, valid only within one run.
// Algorithms compare processes by Rank, never by PeerID.
type PeerID int32

// Peer is a process this one can send to, with its rank.
type Peer struct {
	ID   PeerID
	Rank Rank
}

// Machine is one process's election algorithm: a pure state machine driven by
// the runtime. It must not start goroutines, read clocks, sleep, open sockets
// or files, or draw randomness other than from Env.Rand. Every method runs to
// completion before the runtime delivers the next event to this process.
type Machine interface {
	// Start boots the process at the beginning of a run. Algorithms in which
	// every process initiates at start (Algorithm.StartsAll) do so here.
	Start(env Env)
	// Initiate asks the process to start an election: the workload's
	// initiators at time 0, or a failure detector's consumer later.
	Initiate(env Env)
	// Receive delivers one message sent by from.
	Receive(env Env, from PeerID, m Message)
	// Timeout reports that timer t, armed by SetTimer, expired.
	Timeout(env Env, t TimerID)
	// Suspect reports the failure detector's verdict that p has failed.
	Suspect(env Env, p PeerID)
}

// Env is everything an algorithm may see and do. Each effect is counted by the
// runtime that implements it.
type Env interface {
	// Self is this process's rank.
	Self() Rank
	// Peers lists the links the topology gives this process, in a fixed order:
	// RingUni: [successor]; RingBi: [successor, predecessor]; Complete: every
	// process, this one included, in ascending rank order (so "every process
	// of higher id" is a suffix). The slice is shared: never modify it. On a
	// complete graph it stays valid for the whole run; on a ring the runtime
	// may compute it afresh and reuse it at the next call (a ring of ten
	// million processes stores no links), so read what you need from it.
	Peers() []Peer
	// After returns the process following p in ring order (ring topologies
	// only; ok is false elsewhere). Ring repair uses it to close the ring over
	// a suspected successor (ALGORITHMS.md, "Ring repair").
	After(p PeerID) (next Peer, ok bool)
	// Now is the time since the run started: virtual in the simulator, real in
	// a live process.
	Now() time.Duration
	// Send sends one message to one peer. A send to a crashed process is still
	// a message sent.
	Send(to PeerID, m Message)
	// SetTimer arms timer t to expire after d, replacing any pending expiry of
	// the same timer.
	SetTimer(d time.Duration, t TimerID)
	// CancelTimer disarms timer t; a no-op if it is not armed.
	CancelTimer(t TimerID)
	// Decide records this process's belief about the leader:
	// "elected_i := leader".
	Decide(leader Rank)
	// Rand is this process's random source, seeded by the runtime from the
	// run's seed.
	Rand() *rand.Rand
}

// Topology is the set of links an algorithm needs.
type Topology uint8

const (
	RingUni  Topology = iota + 1 // unidirectional ring: each process knows its successor
	RingBi                       // bidirectional ring: successor and predecessor
	Complete                     // everyone knows everyone, with their ranks
)

func (t Topology) String() string {
	switch t {
	case RingUni:
		return "ring"
	case RingBi:
		return "bidirectional-ring"
	case Complete:
		return "complete"
	}
	return "unknown-topology"
}

// IsRing reports whether the topology is a ring of either direction.
func (t Topology) IsRing() bool { return t == RingUni || t == RingBi }

// Linked reports whether process p of n sends to process q directly under
// the topology (positions, 0 ≤ p, q < n; never p to itself): on a ring to
// its successor, and on a bidirectional one to its predecessor too.
func (t Topology) Linked(p, q, n int) bool {
	switch {
	case p == q:
		return false
	case !t.IsRing():
		return true
	case q == (p+1)%n:
		return true
	}
	return t == RingBi && q == (p+n-1)%n
}

// Degree is how many other processes each process of n sends to directly
// (Linked): n−1 on a complete graph, 1 on a ring, 2 on a bidirectional
// ring of more than two (of two, successor and predecessor are one).
func (t Topology) Degree(n int) int {
	switch {
	case n < 2:
		return 0
	case !t.IsRing():
		return n - 1
	case t == RingBi && n > 2:
		return 2
	}
	return 1
}

// PeersOf is Env.Peers of position self among processes of the given
// ranks, by position: on a ring the successor (and the predecessor), on a
// complete graph every process in ascending rank order. Runtimes that hold
// every process's peers at once compute them their own way (the
// simulator's rings store none); the results are the same.
func PeersOf(t Topology, ranks []Rank, self int) []Peer {
	n := len(ranks)
	peer := func(j int) Peer { return Peer{ID: PeerID(j), Rank: ranks[j]} }
	switch t {
	case RingUni:
		return []Peer{peer((self + 1) % n)}
	case RingBi:
		return []Peer{peer((self + 1) % n), peer((self + n - 1) % n)}
	}
	out := make([]Peer, n)
	for i := range n {
		out[i] = peer(i)
	}
	slices.SortFunc(out, func(a, b Peer) int { return a.Rank.Compare(b.Rank) })
	return out
}

// Phased is implemented by machines whose protocol has named states the
// checker verifies, such as the two-phase bully's Normal, Election and
// Waiting: any two processes in Normal must agree on the leader. The runtime
// reads Phase after every event the process handles.
type Phased interface {
	Phase() string
}

// PhaseNormal is the phase in which a process's decided leader is final.
const PhaseNormal = "Normal"

// StableStore is implemented by a runtime's Env that keeps a few bytes per
// process across that process's crash and restart, as a real server keeps
// its write-ahead log (etcd-raft's hard state and log). Algorithms that
// need it find it by type assertion; one that does not sees every restart
// as a fresh machine. The simulator keeps the bytes in memory; a live node
// keeps them in a file in its own directory. SaveStable and AppendStable
// return once the bytes are kept, so a machine that saves before it sends
// (etcd's rule: persist, then send) never has its messages outlive its
// state.
//
// The store is a log, as a write-ahead log is: AppendStable adds to it at
// the cost of what it adds, and SaveStable replaces it whole (a
// compaction). A crash during AppendStable may keep any prefix of what was
// being appended (a torn tail), never a mixture with older bytes, so a
// machine's format must let it tell a torn last record from a whole one.
type StableStore interface {
	// LoadStable returns what SaveStable last stored for this process in
	// this trial followed by every AppendStable since, or nil if nothing
	// was stored.
	LoadStable() []byte
	// SaveStable replaces the stored bytes; it does not keep b.
	SaveStable(b []byte)
	// AppendStable adds b after the stored bytes; it does not keep b.
	AppendStable(b []byte)
}

// LogHolder is implemented by machines that hold a replicated log (raft
// with its logs parameter): LastIndex is the index of the last entry this
// process holds. The simulator reads it after every Start (a boot, a
// restart) and tells a trial.LogSink, the checker, which judges Leader
// Completeness by it (nodes/check). It is a read, not an event: no trace
// or count changes by it.
type LogHolder interface {
	LastIndex() int64
}

// Noter is implemented by environments that keep notes in the trace: a
// machine may note what it does (an external program's log lines) with
// env.(Noter).Note. The simulator keeps them; elsewhere they are dropped.
type Noter interface {
	Note(text string)
}

// Fallible is implemented by machines that can fail for reasons outside
// their algorithm's rules: a program in another language (nodes/external)
// that writes garbage, exits or never ends its step. The runtime asks Err
// after every event the machine handles; the first error ends the trial,
// which is recorded with that error (its row's error column).
type Fallible interface {
	Err() error
}

// Machines that hold resources, such as an external program's process,
// also implement io.Closer: the runtime calls Close exactly once when it is
// done with the machine (the trial ended, failed, or a restart replaced
// it), whether or not the machine ever started.

// BodyCarrier is implemented by machines whose messages carry bodies the
// machine holds rather than the Message value: an external program's
// (nodes/external), whose kinds are external (Kind.IsExternal). A live
// node puts a sent message's body on the wire and hands a received body
// back to its machine before Receive.
type BodyCarrier interface {
	// Body returns the body of m, a message this machine sent.
	Body(m Message) ([]byte, bool)
	// Adopt returns the message of kind k with the body received, as this
	// machine's Receive reads it.
	Adopt(k Kind, body []byte) Message
}

// Preparer is implemented by machines that need time to get ready before
// a run starts: an external program boots and answers its init. A live
// node calls Prepare when it is configured, before the run's clock starts,
// so that a program's start-up is not counted as election time; Start
// prepares a machine that was not.
type Preparer interface {
	Prepare(env Env)
}
