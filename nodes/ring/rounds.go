package ring

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/electbench/electbench/nodes"
)

// The synchronous ring elections of the lecture (ALGORITHMS.md,
// "time-slice" and "variable-speeds"): O(N) messages bought with time, by
// using ids as numbers rather than only comparing them. One round is T, the
// reference model's one-way latency; both elect the smallest id.
// timerTick is the clock of both: a tick of at most N rounds (alarm).
var timerTick = nodes.RegisterTimer("ROUND_TICK", nodes.MaintenanceClass)

func init() {
	nodes.Register(nodes.Algorithm{
		Name:         "time-slice",
		Family:       "ring",
		Summary:      "Lynch's TimeSlice: id v sends in round (v−1)·N+1 unless an id reached it; elects the smallest, N messages in N·v_min T",
		Topology:     nodes.RingUni,
		StartsAll:    true,
		Model:        nodes.ModelRounds,
		ElectsLowest: true,
		New:          roundsConstructor("time-slice", func(cfg nodes.Config) nodes.Machine { return &timeSlice{clock: newAlarm(cfg)} }),
		Theory:       timeSliceTheory,
	})
	nodes.Register(nodes.Algorithm{
		Name:         "variable-speeds",
		Family:       "ring",
		Summary:      "Lynch's VariableSpeeds: id v moves one hop every 2^v rounds; elects the smallest, <2N ELECTION + N ELECTED in N·2^v_min + N T",
		Topology:     nodes.RingUni,
		StartsAll:    true,
		Model:        nodes.ModelRounds,
		ElectsLowest: true,
		New:          roundsConstructor("variable-speeds", func(cfg nodes.Config) nodes.Machine { return &variableSpeeds{clock: newAlarm(cfg)} }),
		Theory:       variableSpeedsTheory,
	})
}

// roundsConstructor is constructor for machines that need the round
// length (Config.T), which nodes.Batched does not pass on.
func roundsConstructor(name string, newMachine func(nodes.Config) nodes.Machine) func(nodes.Config) (func() nodes.Machine, error) {
	return constructor(name, func(cfg nodes.Config) func() nodes.Machine {
		return func() nodes.Machine { return newMachine(cfg) }
	})
}

// idNumber is the small positive whole number a synchronous algorithm
// reads its rank as. The plan refuses other arrangements (workloads: the
// model's ids), so a rank outside it is a bug of the caller.
func idNumber(r nodes.Rank) uint64 {
	v, ok := r.ID.Small()
	if !ok || r.Attr != 0 || v == 0 {
		panic(fmt.Sprintf("ring: %v is not a small positive id, which the synchronous algorithms need", r))
	}
	return v
}

// alarm waits a number of rounds in ticks of at most N rounds (one
// slice). A simulated run ends when no event is pending, and a cancelled
// timer's event stays queued until its instant: a wait of (v−1)·N or 2^v
// rounds armed whole and then cancelled would keep the run busy long after
// its election ended, past its deadline. In ticks, a cancelled wait is at
// most N rounds away, and a process ticks at most v_min·N/N times (time-
// slice) or 2^v_min times (variable-speeds) before the winner reaches it.
type alarm struct {
	left  uint64        // rounds still to wait; 0 when not waiting
	tick  uint64        // rounds per tick: N
	round time.Duration // one round: T
}

func newAlarm(cfg nodes.Config) alarm {
	return alarm{tick: uint64(max(cfg.N, 1)), round: cfg.T}
}

// set starts a wait of k rounds (k > 0), replacing any other.
func (a *alarm) set(env nodes.Env, k uint64) {
	a.left = k
	env.SetTimer(time.Duration(min(a.left, a.tick))*a.round, timerTick)
}

// ticked takes one tick off the wait and reports whether it is over; if
// not, it arms the next tick.
func (a *alarm) ticked(env nodes.Env) bool {
	if a.left == 0 {
		return false
	}
	if a.left -= min(a.left, a.tick); a.left > 0 {
		a.set(env, a.left)
		return false
	}
	return true
}

// stop ends the wait.
func (a *alarm) stop(env nodes.Env) {
	a.left = 0
	env.CancelTimer(timerTick)
}

// saturating returns a·b, or the largest uint64 when it overflows: an id
// large enough waits for ever, which the plan guard refuses beforehand.
func saturating(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}

// timeSlice is one process of `time-slice` (ALGORITHMS.md, "time-slice"):
// time is cut into slices of N rounds, the v-th belonging to id v. The
// process with id v starts circulating its id in round (v−1)·N + 1 unless an
// id has reached it before; the smallest id's message goes round in its own
// slice, reaching every other process before that process's slice, so no
// other id is ever sent.
type timeSlice struct {
	next  nodes.PeerID
	clock alarm
}

func (p *timeSlice) Start(env nodes.Env) {
	p.next = env.Peers()[0].ID
	if wait := saturating(idNumber(env.Self())-1, p.clock.tick); wait > 0 {
		p.clock.set(env, wait)
		return
	}
	p.send(env) // id 1: its slice is the first
}

// Initiate does nothing: every process starts its clock in Start.
func (p *timeSlice) Initiate(nodes.Env) {}

func (p *timeSlice) Timeout(env nodes.Env, t nodes.TimerID) {
	if t == timerTick && p.clock.ticked(env) {
		p.send(env)
	}
}

func (p *timeSlice) send(env nodes.Env) { env.Send(p.next, election(env.Self(), 0)) }

func (p *timeSlice) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	if m.Kind != kindElection {
		return
	}
	if self := env.Self(); m.Rank.Cmp(&self) == 0 {
		env.Decide(self) // its id went round: nobody started before it
		return
	}
	// The first id to arrive is the smallest in synchronous rounds: it
	// was sent in an earlier slice than any other could be. Relaying it
	// tells the rest of the ring, so no ELECTED round is needed.
	p.clock.stop(env)
	env.Decide(m.Rank)
	env.Send(p.next, m)
}

// Suspect does nothing: the synchronous model has no failures.
func (p *timeSlice) Suspect(nodes.Env, nodes.PeerID) {}

// variableSpeeds is one process of `variable-speeds` (ALGORITHMS.md,
// "variable-speeds"): the message carrying id v waits 2^v − 1 rounds at
// each process and takes one more to the next, so it moves one hop every
// 2^v rounds. A process holds at most one message, the smallest id it has
// seen, its own included; a larger one is dropped on arrival, and one held
// is dropped when a smaller one arrives before it moves on. The smallest
// id goes round in N·2^v_min rounds; by then the second smallest has moved
// at most N/2 hops, the third N/4, …: fewer than 2N ELECTION messages.
// Only the leader knows it has won, so ELECTED goes round after (N more).
type variableSpeeds struct {
	next  nodes.PeerID
	clock alarm
	least nodes.Rank // the smallest id seen, own included
	held  nodes.Rank // the id waiting to move on; zero when none
}

func (p *variableSpeeds) Start(env nodes.Env) {
	p.next = env.Peers()[0].ID
	p.least = env.Self()
	p.hold(env, p.least)
}

// hold keeps r for 2^r − 1 rounds, replacing what was held (SetTimer
// replaces the pending expiry).
func (p *variableSpeeds) hold(env nodes.Env, r nodes.Rank) {
	p.held = r
	wait := uint64(math.MaxUint64)
	if v := idNumber(r); v < 64 {
		wait = 1<<v - 1
	}
	p.clock.set(env, wait)
}

// Initiate does nothing: every process starts its own id in Start.
func (p *variableSpeeds) Initiate(nodes.Env) {}

func (p *variableSpeeds) Timeout(env nodes.Env, t nodes.TimerID) {
	if t != timerTick || !p.clock.ticked(env) || p.held.IsZero() {
		return
	}
	env.Send(p.next, election(p.held, 0))
	p.held = nodes.Rank{}
}

func (p *variableSpeeds) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindElected:
		announce(env, p.next, &m)
		return
	case kindElection:
	default:
		return
	}
	self := env.Self()
	switch {
	case m.Rank.Cmp(&self) == 0:
		// Its own id went round: no smaller one exists, or it would have
		// been dropped on the way.
		env.Decide(self)
		env.Send(p.next, elected(self, 0))
	case m.Rank.Cmp(&p.least) < 0:
		p.least = m.Rank
		p.hold(env, m.Rank)
	default:
		// Not smaller than an id seen here: the smaller one wins.
	}
}

// Suspect does nothing: the synchronous model has no failures.
func (p *variableSpeeds) Suspect(nodes.Env, nodes.PeerID) {}
