package nodetest

import (
	"cmp"
	"container/heap"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// DefaultT is the one-way latency of a network whose Config leaves T zero.
const DefaultT = time.Millisecond

// NotArmed is what ExpectArmed takes for "this timer is not armed".
const NotArmed time.Duration = -1

// Config describes a network. Only Ranks and one of Algorithm and Name are
// required.
type Config struct {
	// Algorithm runs on every process. When nil, Name is looked up in the
	// registry: "name" or "name/variant".
	Algorithm *nodes.Algorithm
	Name      string
	Variant   string       // unless Name names one; empty: the default variant
	Params    nodes.Params // as on the command line
	Ranks     []nodes.Rank // by position; process p is PeerID p
	// T is the one-way latency of every message and the unit of the
	// transcript's times; DefaultT when zero.
	T time.Duration
	// Seed seeds every process's Rand and the draws of Latency.
	Seed uint64
	// Latency, when set, draws each message's delay from the network's
	// seeded source instead of taking exactly T: links may then reorder.
	Latency func(*rand.Rand) time.Duration
}

// Net is a deterministic in-memory network of one algorithm's processes. It
// is not safe for concurrent use; every method runs on the test's goroutine.
type Net struct {
	t          testing.TB
	alg        *nodes.Algorithm
	variant    string
	params     nodes.Params
	newMachine func() nodes.Machine
	unit       time.Duration
	latency    func(*rand.Rand) time.Duration
	netRand    *rand.Rand
	procs      []*proc
	started    bool

	now     time.Duration
	queue   queue
	seq     int
	blocked map[[2]int]bool // directed links that lose every message

	log       []trial.Event
	taken     int // log entries Take has already looked at
	observers []func(trial.Event)

	sent         map[string]int
	total        int
	fired        map[string]int
	lastElection time.Duration
	timersArmed  int
	randCalls    int
	violations   int
}

// proc is one process: its machine and everything the network keeps for it.
type proc struct {
	m       nodes.Machine
	env     *env
	peers   []nodes.Peer
	timers  map[nodes.TimerID]armed
	decided []nodes.Rank
	phase   string
	crashed bool
	paused  bool
	held    []event // a paused process's deliveries and timers, in order
}

type armed struct {
	at  time.Duration
	gen int // the arming's sequence number; a queued expiry of another is stale
}

// New builds a network and its machines without starting them, so that a
// test can crash, cut or observe first; Start boots it. Configuration errors
// fail the test.
func New(t testing.TB, cfg Config) *Net {
	t.Helper()
	alg, variant := cfg.Algorithm, cfg.Variant
	if alg == nil {
		spec := cfg.Name
		if variant != "" && !strings.Contains(spec, "/") {
			spec += "/" + variant
		}
		var err error
		if alg, variant, err = nodes.Lookup(spec); err != nil {
			t.Fatalf("nodetest: %v", err)
		}
	} else if variant == "" {
		variant = alg.Variants[0].Name
	}
	unit := cmp.Or(cfg.T, DefaultT)
	newMachine, err := alg.New(nodes.Config{Variant: variant, Params: cfg.Params, N: len(cfg.Ranks), T: unit})
	if err != nil {
		t.Fatalf("nodetest: %s/%s: %v", alg.Name, variant, err)
	}
	n := &Net{
		t: t, alg: alg, variant: variant, params: cfg.Params, newMachine: newMachine, unit: unit,
		// Process p draws from its own stream (trial.ProcessRand, as in
		// the runtimes), the latency from stream N of the seed.
		latency: cfg.Latency, netRand: rand.New(rand.NewPCG(cfg.Seed, uint64(len(cfg.Ranks)))),
		blocked: map[[2]int]bool{}, sent: map[string]int{}, fired: map[string]int{}, lastElection: -1,
	}
	size := len(cfg.Ranks)
	all := make([]nodes.Peer, size)
	for p, r := range cfg.Ranks {
		all[p] = nodes.Peer{ID: nodes.PeerID(p), Rank: r}
	}
	byRank := slices.SortedFunc(slices.Values(all), func(a, b nodes.Peer) int { return a.Rank.Compare(b.Rank) })
	for p := range size {
		pr := &proc{m: newMachine(), timers: map[nodes.TimerID]armed{}}
		pr.env = &env{n: n, p: p, rank: cfg.Ranks[p], rand: trial.ProcessRand(cfg.Seed, p)}
		pr.peers = byRank // shared, as the simulator shares it
		if alg.Topology.IsRing() {
			pr.peers = nodes.PeersOf(alg.Topology, cfg.Ranks, p)
		}
		pr.phase = phaseOf(pr.m)
		n.procs = append(n.procs, pr)
	}
	return n
}

// Build is New for the common case: algorithm spec ("name" or
// "name/variant") with params on processes of identities ids, by position.
func Build(t testing.TB, spec string, params nodes.Params, ids ...uint64) *Net {
	t.Helper()
	return New(t, Config{Name: spec, Params: params, Ranks: Ranks(ids...)})
}

// Ranks returns the ranks of small identities, in order.
func Ranks(ids ...uint64) []nodes.Rank {
	rs := make([]nodes.Rank, len(ids))
	for i, id := range ids {
		rs[i] = nodes.RankOf(id)
	}
	return rs
}

// Observe calls f with every event as it is recorded: a delivery before the
// receiver handles it, each send as it is made.
func (n *Net) Observe(f func(trial.Event)) { n.observers = append(n.observers, f) }

// SetLatency changes how later sends draw their delay (nil: exactly T).
func (n *Net) SetLatency(f func(*rand.Rand) time.Duration) { n.latency = f }

// Start boots every process that has not crashed, in position order.
func (n *Net) Start() {
	n.t.Helper()
	if n.started {
		n.t.Fatal("nodetest: Start called twice")
	}
	n.started = true
	for p := range n.procs {
		if !n.procs[p].crashed {
			n.input(trial.Event{Kind: trial.EvStart, P: int32(p)}, func(m nodes.Machine, e nodes.Env) { m.Start(e) })
		}
	}
}

// Initiate asks p to start an election now. Like every input below, it is
// ignored when p has crashed.
func (n *Net) Initiate(p int) {
	n.input(trial.Event{Kind: trial.EvInitiate, P: int32(p)}, func(m nodes.Machine, e nodes.Env) { m.Initiate(e) })
}

// Suspect hands p its failure detector's verdict on q now.
func (n *Net) Suspect(p, q int) {
	n.input(trial.Event{Kind: trial.EvSuspect, P: int32(p), Q: int32(q)}, func(m nodes.Machine, e nodes.Env) { m.Suspect(e, nodes.PeerID(q)) })
}

// Receive hands p message m from process from now, bypassing the queue.
func (n *Net) Receive(p, from int, m nodes.Message) {
	n.deliver(event{to: p, from: from, m: m})
}

// Fire expires p's armed timer tm now, ahead of its time.
func (n *Net) Fire(p int, tm nodes.TimerID) {
	n.t.Helper()
	if _, ok := n.procs[p].timers[tm]; !ok {
		n.t.Fatalf("nodetest: process %d: timer %s is not armed", p, tm)
	}
	n.expire(p, tm)
}

// Crash makes p silent: it handles nothing more, its timers are disarmed,
// and messages to it are counted and lost.
func (n *Net) Crash(p int) {
	pr := n.procs[p]
	if pr.crashed {
		return
	}
	n.record(trial.Event{Kind: trial.EvCrash, P: int32(p)})
	n.down(p)
	pr.crashed = true
}

// Restart replaces p, crashed or not, with a fresh machine of the same rank
// started now: a process restarted without stable storage.
func (n *Net) Restart(p int) {
	pr := n.procs[p]
	n.down(p)
	pr.crashed, pr.paused = false, false
	pr.m = n.newMachine()
	pr.phase = phaseOf(pr.m)
	n.input(trial.Event{Kind: trial.EvRestart, P: int32(p)}, func(m nodes.Machine, e nodes.Env) { m.Start(e) })
}

// down loses p's timers and the events held while it was paused.
func (n *Net) down(p int) {
	pr := n.procs[p]
	clear(pr.timers)
	for _, e := range pr.held {
		if e.class == classDelivery {
			n.record(trial.Event{Kind: trial.EvDrop, P: int32(e.from), Q: int32(e.to), Msg: e.m})
		}
	}
	pr.held = nil
}

// Pause stops p (SIGSTOP): its deliveries and timer expirations wait, in
// order, until Resume.
func (n *Net) Pause(p int) {
	if pr := n.procs[p]; !pr.paused && !pr.crashed {
		n.record(trial.Event{Kind: trial.EvPause, P: int32(p)})
		pr.paused = true
	}
}

// Resume wakes p; what it missed is handed over now, in order.
func (n *Net) Resume(p int) {
	pr := n.procs[p]
	if !pr.paused {
		return
	}
	n.record(trial.Event{Kind: trial.EvResume, P: int32(p)})
	pr.paused = false
	for _, e := range pr.held {
		e.at = n.now
		if a, ok := pr.timers[e.timer]; e.class == classTimer && ok && a.gen == e.gen {
			pr.timers[e.timer] = armed{at: n.now, gen: a.gen}
		}
		n.push(e)
	}
	pr.held = nil
}

// Cut partitions the network: every message between two different groups,
// either way, is lost from now until Heal.
func (n *Net) Cut(groups ...[]int) {
	n.record(trial.Event{Kind: trial.EvFault, What: "cut " + formatGroups(groups)})
	for a, g := range groups {
		for b, h := range groups {
			for _, p := range g {
				for _, q := range h {
					if a != b {
						n.blocked[[2]int{p, q}] = true
					}
				}
			}
		}
	}
}

// Block loses every message from one process to another, one way only.
func (n *Net) Block(from, to int) {
	n.record(trial.Event{Kind: trial.EvFault, What: fmt.Sprintf("cut %d->%d", from, to)})
	n.blocked[[2]int{from, to}] = true
}

// Heal restores every link.
func (n *Net) Heal() {
	n.record(trial.Event{Kind: trial.EvFault, What: "heal"})
	clear(n.blocked)
}

// Drop loses every message in flight (not those held for a paused process)
// for which match holds, and returns how many there were.
func (n *Net) Drop(match func(Envelope) bool) int {
	var hit []*event
	for i, e := range n.queue {
		if e.class == classDelivery && !e.dropped && match(Envelope{e.from, e.to, e.m}) {
			hit = append(hit, &n.queue[i])
		}
	}
	// The heap's order is not the send order the transcript follows.
	slices.SortFunc(hit, func(a, b *event) int { return a.seq - b.seq })
	for _, e := range hit {
		e.dropped = true
		n.record(trial.Event{Kind: trial.EvLose, P: int32(e.from), Q: int32(e.to), Msg: e.m})
	}
	return len(hit)
}

// At runs f at time d, before the deliveries of that instant.
func (n *Net) At(d time.Duration, f func()) {
	n.push(event{at: d, class: classAction, action: f})
}

// Jump moves the clock to d without handling anything, for tests that hand
// one process one event at a time. Events already due are handled late, at
// the clock's time; the clock never goes back.
func (n *Net) Jump(d time.Duration) {
	n.t.Helper()
	if d < n.now {
		n.t.Fatalf("nodetest: Jump to %v, before now (%v)", d, n.now)
	}
	n.now = d
}

// Step handles the next event in the queue and reports whether there was
// one.
func (n *Net) Step() bool {
	if _, ok := n.next(); !ok {
		return false
	}
	n.pop()
	return true
}

// RunUntil handles every event due at or before d, then sets the clock to d.
func (n *Net) RunUntil(d time.Duration) {
	for at, ok := n.next(); ok && at <= d; at, ok = n.next() {
		n.pop()
	}
	n.now = max(n.now, d)
}

// Run handles events until none is left, or until the next is due after
// limit, and reports whether the network came to rest.
func (n *Net) Run(limit time.Duration) (quiet bool) {
	for at, ok := n.next(); ok; at, ok = n.next() {
		if at > max(limit, n.now) {
			return false
		}
		n.pop()
	}
	return true
}

// Stabilize runs until the network is at rest and fails the test if it is
// still busy after limit.
func (n *Net) Stabilize(limit time.Duration) {
	n.t.Helper()
	if !n.Run(limit) {
		at, _ := n.next()
		n.t.Fatalf("nodetest: %s still busy at %v (next event at %v)", n.alg.Name, limit, at)
	}
}

// next discards what is no longer due at the head of the queue (expiries
// of re-armed, cancelled or crashed timers; dropped messages) and returns
// when the next event is due.
func (n *Net) next() (time.Duration, bool) {
	for n.queue.Len() > 0 {
		e, stale := n.queue[0], false
		switch e.class {
		case classDelivery:
			stale = e.dropped
		case classTimer:
			a, ok := n.procs[e.to].timers[e.timer]
			stale = !ok || a.gen != e.gen
		}
		if !stale {
			return e.at, true
		}
		heap.Pop(&n.queue)
	}
	return 0, false
}

// pop handles the event at the head of the queue, which next has vetted.
func (n *Net) pop() {
	e := heap.Pop(&n.queue).(event)
	n.now = max(n.now, e.at)
	if e.class == classAction {
		e.action()
		return
	}
	switch pr := n.procs[e.to]; {
	case pr.paused:
		pr.held = append(pr.held, e)
	case e.class == classTimer:
		n.expire(e.to, e.timer)
	case pr.crashed:
		n.record(trial.Event{Kind: trial.EvDrop, P: int32(e.from), Q: int32(e.to), Msg: e.m})
	default:
		n.deliver(e)
	}
}

func (n *Net) deliver(e event) {
	if e.m.Kind.IsElection() && !n.procs[e.to].crashed {
		n.lastElection = n.now
	}
	n.input(trial.Event{Kind: trial.EvRecv, P: int32(e.from), Q: int32(e.to), Msg: e.m}, func(m nodes.Machine, env nodes.Env) {
		m.Receive(env, nodes.PeerID(e.from), e.m)
	})
}

func (n *Net) expire(p int, tm nodes.TimerID) {
	delete(n.procs[p].timers, tm)
	n.fired[tm.String()]++
	n.input(trial.Event{Kind: trial.EvTimer, P: int32(p), Timer: tm}, func(m nodes.Machine, e nodes.Env) { m.Timeout(e, tm) })
}

// input records what a live process is handed, lets it handle it, then
// reads its phase. A crashed process is handed nothing.
func (n *Net) input(ev trial.Event, f func(nodes.Machine, nodes.Env)) {
	p := int(ev.Q)
	if ev.Kind != trial.EvRecv {
		p = int(ev.P)
	}
	pr := n.procs[p]
	if pr.crashed {
		return
	}
	n.record(ev)
	f(pr.m, pr.env)
	// Like the simulator, the network reports a Phased machine's phase
	// after every event it handles; a transcript shows the changes.
	if ph, ok := pr.m.(nodes.Phased); ok {
		pr.phase = ph.Phase()
		n.record(trial.Event{Kind: trial.EvPhase, P: int32(p), Phase: pr.phase})
	}
	n.checkPhases()
}

func phaseOf(m nodes.Machine) string {
	if ph, ok := m.(nodes.Phased); ok {
		return ph.Phase()
	}
	return ""
}

// checkPhases counts a violation of the invariant of nodes.Phased: any two
// live processes in Normal that have decided agree on the leader.
func (n *Net) checkPhases() {
	var leader nodes.Rank
	for _, pr := range n.procs {
		if pr.crashed || pr.phase != nodes.PhaseNormal || len(pr.decided) == 0 {
			continue
		}
		if l := pr.decided[len(pr.decided)-1]; leader.IsZero() {
			leader = l
		} else if l != leader {
			n.violations++
			return
		}
	}
}

func (n *Net) record(e trial.Event) {
	e.At = n.now
	n.log = append(n.log, e)
	for _, f := range n.observers {
		f(e)
	}
}

// Inspection.

// Size is the number of processes.
func (n *Net) Size() int { return len(n.procs) }

// Rank is process p's rank.
func (n *Net) Rank(p int) nodes.Rank { return n.procs[p].env.rank }

// Algorithm is the algorithm the network runs.
func (n *Net) Algorithm() *nodes.Algorithm { return n.alg }

// Machine is process p's current machine (a new one after Restart).
func (n *Net) Machine(p int) nodes.Machine { return n.procs[p].m }

// Crashed reports whether p is crashed.
func (n *Net) Crashed(p int) bool { return n.procs[p].crashed }

// Now is the network's clock.
func (n *Net) Now() time.Duration { return n.now }

// Decided is every decision p has made, in order. Do not modify it.
func (n *Net) Decided(p int) []nodes.Rank { return n.procs[p].decided }

// Leader is p's latest decision, the zero rank if none.
func (n *Net) Leader(p int) nodes.Rank {
	if d := n.procs[p].decided; len(d) > 0 {
		return d[len(d)-1]
	}
	return nodes.Rank{}
}

// Armed reports when p's timer tm expires, and whether it is armed.
func (n *Net) Armed(p int, tm nodes.TimerID) (time.Duration, bool) {
	a, ok := n.procs[p].timers[tm]
	return a.at, ok
}

// Messages is the number of messages sent, of every kind; a message to a
// crashed process or over a cut link counts.
func (n *Net) Messages() int { return n.total }

// SentByKind counts the messages sent by kind name.
func (n *Net) SentByKind() map[string]int { return maps.Clone(n.sent) }

// Fired counts timer expirations by timer name.
func (n *Net) Fired() map[string]int { return maps.Clone(n.fired) }

// LastElection is when the last election message was delivered, -1 if none
// was: the end of the turnaround (ALGORITHMS.md, "The reference model").
func (n *Net) LastElection() time.Duration { return n.lastElection }

// TimersArmed counts SetTimer calls; RandCalls counts Rand calls. Families
// without timers or randomness assert that both stay zero.
func (n *Net) TimersArmed() int { return n.timersArmed }

// RandCalls counts calls of Env.Rand by any process.
func (n *Net) RandCalls() int { return n.randCalls }

// PhaseViolations counts the events after which two live processes in
// nodes.PhaseNormal believed different leaders.
func (n *Net) PhaseViolations() int { return n.violations }

// Events is everything that happened, in order. Do not modify it.
func (n *Net) Events() []trial.Event { return n.log }

// Take returns the messages sent since the last Take, in send order.
func (n *Net) Take() []Envelope {
	var out []Envelope
	for _, e := range n.log[n.taken:] {
		if e.Kind == trial.EvSend {
			out = append(out, Envelope{int(e.P), int(e.Q), e.Msg})
		}
	}
	n.taken = len(n.log)
	return out
}
