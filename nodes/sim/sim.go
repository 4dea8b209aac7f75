package sim

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/electbench/electbench/internal/prefault"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/nodes/trial/timeline"
)

// payload kinds of heap events.
const (
	evDeliver uint8 = iota
	evTimer
	evInitiate
	evSuspect   // to suspects from
	evHeartbeat // detector tick of process to (gen: its incarnation)
	evFault     // the fault timeline's action number gen
)

// payload is a queued event, its message packed (packed.go): 40 bytes.
type payload struct {
	a, b      int64 // the message's A and B
	rank, aux int32 // the message's ranks by handle, or where it is whole (packed.go)
	to, from  int32
	gen       uint32
	// sub is the message's nodes.Kind for evDeliver, the nodes.TimerID for
	// evTimer: one field for both keeps a payload at 40 bytes, not 48
	// (200 MB of bully's 25 million pending messages at N = 4,096).
	sub  uint16
	kind uint8
	// ids says rank and aux hold the message's ranks as their 32-bit
	// identities (a small rank: nodes.RankOf), not as handles (packed.go).
	ids bool
}

type timerState struct {
	gen   uint32
	armed bool
}

// sim is the state of one running trial.
type sim struct {
	cfg      trial.Config
	n        int
	t        time.Duration
	deadline int64
	// look is the earliest time at which the run loop must look at the
	// deadline or the settling rule: one comparison an event, as with the
	// deadline alone (see ends).
	look     int64
	machines machineTable // by position
	alive    []bool       // by position
	// env is the nodes.Env of the process whose handler is running: one
	// for all processes (enter), so that a process costs its machine and
	// its alive flag and nothing more.
	env   env
	ranks nodes.Ranks // Config.Ranks
	// Config.Ranks as Env.Self reads them (rank): all ranks whole when
	// full is set, else the identities of small ranks (nodes.Ranks) and
	// the ranks of a window of positions built whole from them.
	full     []nodes.Rank
	small    []uint32
	win      rankWindow
	peers    []nodes.Peer // Env.Peers of a complete graph (rings compute theirs: ringPeers)
	topo     nodes.Topology
	ringPeer [2]nodes.Peer // what Env.Peers last returned on a ring
	// ringLast holds, by position, the latest delivery time on the links to
	// the successor and to the predecessor (FIFO ring links under a random
	// latency model: the hot path of a million-process ring cannot afford a
	// map look-up per message); nil unless the topology is a ring and the
	// latency is not constant.
	ringLast [][2]int64

	now      int64
	seq      uint64
	fifoMode bool
	// packFifo says the FIFO queue holds its deliveries packed (pfifo)
	// rather than whole (fifo): on a complete graph, whose pending set is
	// many messages a process, not on a ring (packedDelivery).
	packFifo bool
	faulty   bool // Config.Faults is not empty: only then do sends and deliveries look at link effects
	fifo     fifo[delivery]
	pfifo    fifo[packedDelivery]
	heap     queue // a radix heap when fifoMode is off (a wheel once big: grow), a 4-ary heap beside the FIFO otherwise
	slab     slab
	wide     wide          // the queued messages that do not pack (packed.go)
	rx       nodes.Message // the message being delivered, unpacked
	// rxRank and rxAux are the handles of the ranks of the message
	// delivered last, for the messages its receiver sends on (handle).
	rxRank, rxAux int32
	linkLast      map[uint64]int64 // per directed link off the ring: latest delivery time (FIFO links)
	// linkRows holds the same on a complete graph under a random latency,
	// by sender then receiver, a sender's row made at its first send: at
	// N = 4,096 bully sends to 16.7 million links, and the map's look-ups,
	// a cache miss in a 300 MB table each, took 30% of its time.
	linkRows [][]int64
	timers   map[uint64]timerState
	// timerTab holds the timers of a small trial by position then timer,
	// timerW a position's (the timers registered when it began; a timer
	// registered since, or a big trial's, is in timers): a map look-up and
	// an assignment at every timer armed and fired were 3.6% of a raft
	// trial at N = 5 (issue 42).
	timerTab []timerState
	timerW   int

	// The trial's budget (trial.Budget): the loop compares the event count
	// and the pending count with them before every event.
	maxEvents, maxPending int64
	overBudget            *trial.BudgetError
	// done is the cancellation of RunContext, looked at once the work
	// done (events processed plus scheduled) reaches nextPoll, every
	// cancelEvery; canceled says it stopped the trial.
	done     <-chan struct{}
	nextPoll int64
	canceled bool
	// reported is the events added to cfg.Processed so far.
	reported int64
	// fifoElections counts the election messages sent under constant
	// latency and no faults, each delayed T: their delays are noted at
	// once when the trial ends.
	fifoElections int64

	net   *rand.Rand
	rands []*rand.Rand

	byRank      map[nodes.Rank]int
	lastDecided int32 // position of the latest decision; -1 before any
	det         trial.Detector
	detRand     *rand.Rand
	hb          *heartbeats
	phased      bool  // machines implement nodes.Phased
	fallible    bool  // machines implement nodes.Fallible
	closing     bool  // machines implement io.Closer
	err         error // the first machine failure (nodes.Fallible): the trial ends

	// Background events (heartbeat ticks and pings) do not keep a run
	// alive: it comes to rest when no other event is pending and nothing
	// has happened for longer than a detector could still take to notice.
	core        int64 // pending non-background events
	lastCore    int64 // time of the latest non-background event
	quietEnough int64 // the quiet period that ends a run with heartbeats
	fifoCore    int64 // of which in the FIFO queue

	res     trial.Record
	ev      trial.Sink         // Config.Events
	decider trial.DecisionSink // ev, when it takes decisions by a call of their own
	leader  nodes.Rank         // the leader handed to decider
	logs    trial.LogSink      // ev, when it reads the machines' last log indexes
	want    trial.Kinds        // the kinds ev wants
	evbuf   trial.Event        // the event being emitted (emit)
	// msgbuf is the buffer of message events (emitMsg) alone: the fields
	// they do not set stay zero in it, so that it is not cleared first.
	msgbuf trial.Event
	// sendKinds, for a sink that wants the sends of some kinds only
	// (sendFilter), says by kind which (sendYes, sendNo; 0 not asked
	// yet); nil: every send.
	sendKinds  []uint8
	sendFilter trial.SendFilter
	sink       uint8 // see warm

	// Faults (effects.go), kept after the hot fields.
	newMachine  func() nodes.Machine
	tl          *timeline.Timeline // Config.Faults; nil without any
	tlSends     bool               // the timeline counts election messages
	actions     []func()           // the timeline's scheduled actions, by evFault gen
	links       []*activeLink      // link effects in force, in activation order
	paused      []bool             // by position; nil without pause faults
	held        [][]held           // events withheld from paused processes
	slow        *slowProcs         // nil without slow faults
	incarnation []uint32           // by position: restarts, for heartbeat ticks
	fr          *rand.Rand         // the fault stream
	stable      [][]byte           // by position: nodes.StableStore's bytes; nil until a machine saves

	// settle ends a quorum trial once its election is over for good
	// (trial.Settling); nil when the trial runs to its deadline.
	// suspecting counts the detector's suspicions scheduled and not yet
	// delivered: the rule waits for them. Kept after the hot fields.
	settle     *trial.Settling
	suspecting int
	// spare is where this state came from and goes back to once the
	// trial is over (recycle); nil for a sim made otherwise (tests).
	spare *spare
}

// Run executes one trial and returns what the runtime counted. It fails
// without a record only on an invalid configuration or an algorithm that
// rejects its parameters. A machine that fails (nodes.Fallible: an external
// program that misbehaves) ends the trial: the record so far is returned
// with its error. A built-in algorithm that misbehaves (sends to a process
// that does not exist, an unregistered kind) is a bug and panics with a
// readable message. Machines that hold resources (io.Closer) are closed
// before Run returns, even when it panics.
func Run(cfg trial.Config) (*trial.Record, error) {
	return RunContext(context.Background(), cfg)
}

// cancelEvery is how much work a trial does between two looks at its
// context: events processed plus events scheduled (messages sent, timers
// armed). Events alone are not a measure of time: one event of multicast
// or bully on thousands of processes sends to every one of them, and a
// sweep's multicast trial at N = 4096 went 0.65 s, 16.8 million messages,
// within its first 65,536 events (bully at its end 0.9 s), so that Ctrl-C
// took 2 s to stop it. At tens of millions of events a second, a cancelled
// trial stops within a few milliseconds, and the look costs nothing
// measurable.
const cancelEvery = 1 << 16

// RunContext is Run, stopped when ctx is cancelled: the trial then ends at
// once with ctx's error and the record so far, which is not a result.
func RunContext(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	s, err := newSim(cfg)
	if err != nil {
		return nil, err
	}
	// Runs last: the record is copied out of s by then (result).
	defer s.recycle()
	defer s.closeMachines()
	// The record keeps nothing of the slab: its chunks serve the next
	// trial.
	defer recycleSlab(&s.slab)
	if s.cfg.Processed != nil {
		defer func() { s.cfg.Processed.Add(-s.reported) }()
	}
	s.done = ctx.Done()
	s.run()
	s.res.Delays.AddN(s.t, s.fifoElections)
	if s.canceled {
		return s.result(), ctx.Err()
	}
	s.res.Alive = s.alive // the run is over: nothing changes them any more (10 MB at N = 10^7)
	if s.err == nil && s.overBudget != nil {
		return s.result(), s.overBudget
	}
	return s.result(), s.err
}

// result is the trial's record, apart from s, whose state serves the next
// trial (recycle).
func (s *sim) result() *trial.Record {
	rec := new(trial.Record)
	*rec = s.res
	rec.OwnCounts() // the spare's counts serve the next trial
	return rec
}

// closeMachines closes every machine still in place (io.Closer); restart
// closes the one it replaces.
func (s *sim) closeMachines() {
	if !s.closing {
		return
	}
	for i := range int32(s.machines.len()) {
		s.machines.at(i).(io.Closer).Close()
	}
}

func newSim(cfg trial.Config) (*sim, error) {
	if cfg.Algorithm != nil {
		if err := cfg.Algorithm.CheckParams(cfg.Params); err != nil {
			return nil, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	n := cfg.Ranks.Len()
	variant := cfg.VariantName()
	t := cfg.T()
	batch := &nodes.Batch{}
	unit := cfg.UnitOrT()
	mc := nodes.Config{Variant: variant, Params: cfg.Params, N: n, T: unit, D: cfg.BoundIn(unit), Batch: batch}
	newMachine, err := cfg.Algorithm.New(mc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Algorithm.Name, err)
	}
	settle, err := trial.NewSettling(&cfg, mc)
	if err != nil {
		return nil, err
	}
	deadline := cfg.DeadlineOrDefault()
	budget := cfg.BudgetOrDefault()
	sp := takeSpare()
	s := sp.sim
	*s = sim{
		spare: sp,
		cfg:   cfg, n: n, t: t, deadline: int64(deadline),
		maxEvents: budget.MaxEvents, maxPending: budget.MaxInFlight,
		ranks:    cfg.Ranks,
		full:     cfg.Ranks.Whole(),
		topo:     cfg.Algorithm.Topology,
		fifoMode: cfg.Latency.Constant(),
		packFifo: cfg.Latency.Constant() && cfg.Algorithm.Topology == nodes.Complete,
		linkLast: sp.linkLast,
		timers:   sp.timers,
		net:      sp.netRand(&cfg),
		machines: newMachineTable(n, batch),
		alive:    prefault.Make[bool](n),
		settle:   settle,
		slab:     takeSlab(),
	}
	s.small, _ = s.ranks.Small()
	s.win.base = -rankWindowLen // empty
	if s.full == nil && !(s.fifoMode && s.topo.IsRing()) {
		// Deliveries come in ring order only on a ring under constant
		// latency: elsewhere the window would be built afresh at almost
		// every event, so the ranks are built whole once.
		s.full = sp.kept.wholeRanks(&s.ranks)
	}
	s.det = cfg.DetectorIn(unit)
	s.env.s = s
	if s.machines.regular {
		batch.Take() // the array's elements are the machines (nodes.Batch)
	} else {
		for i := range int32(n) {
			s.machines.set(i, newMachine())
		}
	}
	for i := range s.alive {
		s.alive[i] = true
	}
	s.lastDecided = -1
	s.rxRank, s.rxAux = handleNone, handleNone
	if s.det.Kind == "heartbeat" {
		s.hb = &heartbeats{lastHeard: make([]int64, n*n), suspected: make([]bool, n*n)}
		s.incarnation = make([]uint32, n)
		s.quietEnough = int64(s.det.Tau + 2*s.det.P + 4*t)
	}
	_, s.fallible = s.machines.at(0).(nodes.Fallible)
	_, s.closing = s.machines.at(0).(io.Closer)
	s.res = trial.NewRecordIn(&sp.counts, n, t, s.det)
	s.res.Bound = cfg.BoundIn(unit)
	s.newMachine = newMachine
	if err := s.initFaults(); err != nil {
		s.closeMachines()
		return nil, err
	}
	s.prepare(n)
	return s, nil
}

// prepare builds what the event loop reads once the machines and faults
// are in place: the event queue, the complete topology's peer list, the
// ring's per-link clocks, and the event sinks.
func (s *sim) prepare(n int) {
	// With constant latency, deliveries wait in the FIFO queue and only
	// timers and control events in the heap; events of the FIFO run first at
	// their time and may schedule heap events earlier than the heap's least,
	// which a radix heap does not allow.
	switch {
	case s.fifoMode:
		s.heap = &heap4{}
	case n < smallUntil:
		s.heap = s.spare.takeSorted()
	case s.spare.radix != nil:
		s.spare.radix.warm = s.warmer()
		s.heap = s.spare.radix
	default:
		s.heap = &radix{warm: s.warmer()}
	}
	if s.topo == nodes.Complete {
		s.peers = reuse(s.spare.kept.peers, n)
		for i := range n {
			s.peers[i] = nodes.Peer{ID: nodes.PeerID(i), Rank: s.ranks.At(i)}
		}
		sortPeers(s.peers)
	}
	if s.topo.IsRing() && !s.fifoMode {
		s.ringLast = make([][2]int64, n)
	}
	if w := nodes.NumTimers(); n*w <= timerTabMax {
		s.timerTab, s.timerW = s.spare.timerTab[:0], w
		s.timerTab = append(s.timerTab, make([]timerState, n*w)...)
	}
	if s.topo == nodes.Complete && !s.fifoMode {
		s.linkRows = reuse(s.spare.kept.rows, n)
		if n <= smallRows {
			// A small trial's rows are one allocation, not one a sender.
			all := reuse(s.spare.kept.links, n*n)
			s.spare.kept.links = all
			for i := range s.linkRows {
				s.linkRows[i] = all[i*n : (i+1)*n : (i+1)*n]
			}
		}
	}
	s.ev = s.cfg.Events
	s.want = trial.KindsOfSink(s.ev)
	if f, ok := s.ev.(trial.SendFilter); ok && s.want.Has(trial.EvSend) {
		// Asked kind by kind at the first send of each (wantsSend): asking
		// for every kind registered here, through the judge and the
		// checker, took 3% of a raft trial at N = 5 that sends four.
		s.sendKinds, s.sendFilter = reuse(s.spare.kept.kinds, nodes.NumKinds()), f
	}
	s.decider, _ = s.ev.(trial.DecisionSink)
	s.logs, _ = s.ev.(trial.LogSink)
	if s.want.Has(trial.EvPhase) {
		_, s.phased = s.machines.at(0).(nodes.Phased)
	}
}

func (s *sim) run() {
	// Faults at the start happen before anyone boots: a crashed process
	// never starts, and exactly the initiators suspect it at time 0.
	if s.tl != nil {
		s.tl.Begin(view{s})
	}
	// Boot every live process, then the workload's initiations, all at time 0.
	if s.cfg.Algorithm.StartsAll {
		s.res.FirstInitiation = 0
	}
	for i := range s.machines.len() {
		if !s.alive[i] {
			continue
		}
		s.emitProc(trial.EvStart, int32(i))
		s.machines.at(int32(i)).Start(s.enter(int32(i)))
		s.leave()
		s.started(int32(i))
		s.afterEvent(int32(i))
		if s.err != nil {
			return
		}
	}
	for _, p := range s.cfg.Initiators {
		s.schedule(0, classControl, payload{kind: evInitiate, to: int32(p)})
	}
	if s.tl != nil {
		s.tl.Arm(s.cfg.Algorithm.StartsAll)
		s.tlSends = s.tl.WantsSends()
	}
	s.scheduleFalseSuspicions()
	if s.hb != nil {
		for p := range int32(s.n) {
			s.scheduleBackground(0, payload{kind: evHeartbeat, to: p})
		}
	}
	for s.err == nil {
		var at int64
		fromFifo := false
		switch {
		case s.fifoLen() > 0 && s.heap.len() > 0:
			fat, ford := s.fifoNext()
			h := s.heap.peek()
			fromFifo = fat < h.at || (fat == h.at && ford < h.ord)
			at = min(fat, h.at)
		case s.fifoLen() > 0:
			fromFifo = true
			at, _ = s.fifoNext()
		case s.heap.len() > 0:
			at = s.heap.peek().at
		default:
			s.res.Quiescent = true
			return
		}
		if at >= s.look && s.ends(at) {
			return
		}
		if s.res.Events >= s.maxEvents || s.core > s.maxPending {
			s.stopOverBudget()
			return
		}
		if work := s.res.Events + int64(s.seq); work >= s.nextPoll {
			s.nextPoll = work + cancelEvery
			s.grow()
			if s.done != nil {
				select {
				case <-s.done:
					s.canceled = true
					return
				default:
				}
			}
			if s.cfg.Processed != nil {
				s.cfg.Processed.Add(s.res.Events - s.reported)
				s.reported = s.res.Events
			}
		}
		s.now = at
		if fromFifo && s.packFifo {
			d := s.pfifo.pop()
			if s.background(nodes.Kind(d.p.sub)) && s.settled() {
				return
			}
			if s.slow != nil && s.slowPacked(d) {
				continue
			}
			s.res.End = time.Duration(at)
			s.res.Events++
			s.deliver(d.p.to, d.p.from, d.ord, s.unpack(&d.p))
			continue
		}
		if fromFifo {
			d := s.fifo.pop()
			if s.background(d.msg.Kind) && s.settled() {
				return
			}
			if s.slow != nil && s.slowDelivery(d) {
				continue
			}
			s.res.End = time.Duration(at)
			s.res.Events++
			s.deliver(d.to, d.from, d.ord, &d.msg)
			continue
		}
		e := s.heap.pop()
		// p points into the slab: its slot is freed only after dispatch, so
		// a handler scheduling new events cannot overwrite it.
		p := s.slab.at(e.slot)
		if (p.kind == evHeartbeat || p.kind == evDeliver && s.background(nodes.Kind(p.sub))) && s.settled() {
			return
		}
		if s.paused != nil && p.kind != evDeliver && p.kind < evFault && s.paused[p.to] {
			// A paused process handles nothing: keep the event for later.
			if p.kind != evHeartbeat {
				s.popped()
			}
			served := s.slow != nil && s.slow.served[e.ord]
			s.hold(p.to, *p, e.ord, p.kind == evHeartbeat, served)
			if served {
				delete(s.slow.served, e.ord) // held as served, it is not served again
			}
			s.slab.release(e.slot)
			continue
		}
		if s.slow != nil && p.kind < evHeartbeat && s.slowed(e, p) {
			continue // handled when its step completes
		}
		s.res.End = time.Duration(at)
		s.res.Events++
		switch p.kind {
		case evDeliver:
			s.deliver(e.to, p.from, e.ord, s.unpack(p))
		case evTimer:
			s.fire(p.to, nodes.TimerID(p.sub), p.gen)
		case evInitiate:
			s.popped()
			s.electionEvent()
			s.initiate(p.to)
		case evSuspect:
			s.popped()
			s.suspecting--
			s.electionEvent()
			s.suspect(p.to, p.from)
		case evFault:
			s.popped()
			s.electionEvent()
			s.actions[p.gen]()
		case evHeartbeat:
			s.heartbeat(p.to, p.gen)
		}
		s.slab.release(e.slot)
	}
}

// fifoLen is the deliveries the FIFO queue holds, packed or whole (one of
// the two is always empty).
func (s *sim) fifoLen() int { return s.fifo.len() + s.pfifo.len() }

// fifoNext is the time and order of the FIFO queue's least delivery; only
// when fifoLen() > 0.
func (s *sim) fifoNext() (int64, uint64) {
	if s.packFifo {
		d := s.pfifo.peek()
		return d.at, d.ord
	}
	d := s.fifo.peek()
	return d.at, d.ord
}

// fifoPut appends a delivery of m, sent from → to, due at `at`, to the
// FIFO queue: packed on a complete graph, whole otherwise (packFifo).
func (s *sim) fifoPut(at int64, ord uint64, to, from int32, m *nodes.Message) {
	if s.packFifo {
		d := s.pfifo.slot()
		d.at, d.ord = at, ord
		d.p.kind, d.p.to, d.p.from = evDeliver, to, from
		s.pack(&d.p, m, from, to)
		return
	}
	d := s.fifo.slot()
	d.at, d.ord, d.to, d.from = at, ord, to, from
	d.msg = *m // alone: in the assignment above it went through a temporary
}

// grow trades the radix heap for a wheel once the pending set is big
// (wheelFrom), and back once it is small again (wheelUntil): it is
// checked every cancelEvery of work, so a set grows or shrinks at most
// that far past the mark before the trade. Both queues order events
// alike, so a trade changes no event, only its cost.
//
// A ring keeps its radix heap. Its pending set is a few messages a
// process (lcr at most one, hs two), all sent 1 to 5 ms ahead: the radix
// heap appends them to the ends of two or three buckets, in the cache,
// where the wheel spreads them over the 16,000 buckets of those 4 ms and
// misses the cache at the tail of each (lcr, N = 1,000,000, every process
// initiating, uniform(1ms,5ms): 7,580 CPU samples against 5,020 before
// the wheel, 830 of them in its append; 3,988–5,245 with the ring on the
// radix heap). The wheel pays where the pending set is many times the
// processes (bully's N² messages), which the radix heap moves down its
// buckets a score of times each.
func (s *sim) grow() {
	if q, ok := s.heap.(*sorted); ok && q.big != nil {
		s.heap = q.big // it outgrew sortedMax: its radix heap from here on
	}
	if s.topo.IsRing() {
		return
	}
	switch q := s.heap.(type) {
	case *radix:
		if q.len() >= wheelFrom {
			w := newWheel(s.cfg.Latency.Bound(), q.last, &s.slab, s.warmWheel)
			q.each(w.push)
			s.heap = w
		}
	case *sorted:
		if q.len() >= wheelFrom { // below sortedMax: the tests' wheelFrom
			w := newWheel(s.cfg.Latency.Bound(), s.now, &s.slab, s.warmWheel)
			for _, e := range q.e {
				w.push(e)
			}
			s.heap = w
		}
	case *wheel:
		if q.len() < wheelUntil {
			// Every event pending is at s.now or later: the radix heap
			// takes them from there.
			r := &radix{last: s.now, warm: s.warm}
			q.empty(r.push)
			s.heap = r
		}
	}
}

// ends reports whether the run ends before its next event, at `at`: past
// the deadline, or settled (steady). Otherwise it sets when to look next:
// the deadline, or the settling rule's next instant, whichever comes first
// (an election event since only moves that instant later, so looking
// early costs a comparison and nothing else).
func (s *sim) ends(at int64) bool {
	if at > s.deadline {
		return true
	}
	if s.settle != nil && s.settle.Due(time.Duration(at)) && s.steady(at) {
		return true
	}
	s.look = s.deadline
	if s.look < math.MaxInt64 {
		s.look++ // the first instant past it
	}
	if s.settle != nil {
		s.look = min(s.look, int64(s.settle.Next()))
	}
	return false
}

// steady reports, when the settling rule is due before the event at `at`,
// whether the trial has settled (trial.Settling): nothing of a fault to come
// or in force, no suspicion pending, and the live processes agreeing on a
// live leader. It then ends there, its record as counted so far.
func (s *sim) steady(at int64) bool {
	quiet := s.tl.Settled() && s.suspecting == 0
	if !s.settle.Settled(time.Duration(at), quiet, &s.res.Decisions, s.alive, s.ranks) {
		return false
	}
	s.res.Settled = true
	return true
}

// electionEvent tells the settling rule, if any, of an election event now.
func (s *sim) electionEvent() {
	if s.settle != nil {
		s.settle.Event(time.Duration(s.now))
	}
}

// stopOverBudget ends a trial that has used up its budget, before the next
// event: its record stays as counted so far.
func (s *sim) stopOverBudget() {
	e := &trial.BudgetError{What: trial.BudgetEvents, Limit: s.maxEvents, At: time.Duration(s.now), Events: s.res.Events, Pending: s.core}
	if s.res.Events < s.maxEvents {
		e.What, e.Limit = trial.BudgetInFlight, s.maxPending
	}
	s.overBudget = e
}

// smallUntil is the least trial whose events go through the radix heap
// under random latency: below it they go through a sorted queue (sorted),
// which costs least for the dozen events a trial of 5 processes holds
// pending. Both order events by (at, ord), so the choice changes no
// event, only its cost. A variable, as wheelFrom, for the tests.
var smallUntil = 64

// warmFrom is the least trial whose radix heap warms the events about to
// run (warm): below it, the processes' state and the pending payloads
// stay in the cache, warm's loads hit it, and its pass over every bucket
// refill empties was 5% of a raft trial's CPU at N = 5 (issue 42).
const warmFrom = 64

// warmer is the radix heap's warm for this trial (warmFrom): nil, none,
// for a small one.
func (s *sim) warmer() func([]entry) {
	if s.n < warmFrom {
		return nil
	}
	return s.warm
}

// warm loads the payload, the process and the machine of events about to
// run, so that their cache misses overlap (radix.warm) instead of coming
// one after another when each event runs. The loaded bytes are summed into
// s.sink only so that the loads are not optimised away.
func (s *sim) warm(next []entry) {
	var x uint8
	for i := range next {
		x += s.warmEvent(s.slab.at(next[i].slot), next[i].to)
	}
	s.sink += x
}

// warmWheel is warm for the entries of a wheel's bucket, which hold
// their payloads.
func (s *sim) warmWheel(next []wheelEntry) {
	var x uint8
	for i := range next {
		x += s.warmEvent(&next[i].p, next[i].p.to)
	}
	s.sink += x
}

// warmEvent loads what the event of payload p, for process to, reads, and
// returns a byte of it for warm's sum.
func (s *sim) warmEvent(p *payload, to int32) uint8 {
	// A payload (40 bytes) spans one or two cache lines: load a
	// byte at its start and its end, so as to touch each.
	// The receiver's state lies in several arrays (machines, alive,
	// ranks for Env.Self, and the FIFO ring state it reads when it
	// sends), the message's rank in the rank table: load each.
	x := uint8(p.a) + p.kind + *(*uint8)(s.machines.dataWord(to)) + uint8(s.rank(to).ID[3])
	// Only a delivery's payload sets rank; a timer's or a fault's
	// holds what the slot's last event left, perhaps another trial's
	// (reuse.go), so the handle is bounded before it is read. A
	// message packed by identities (ids) reads no rank table.
	switch {
	case p.ids:
	case s.small != nil:
		// handled reads the message's rank here, and isRank the
		// receiver's, which the messages it sends carry.
		x += uint8(s.small[to])
		if p.rank >= 0 && int(p.rank) < len(s.small) {
			x += uint8(s.small[p.rank])
		}
	case p.rank >= 0 && int(p.rank) < len(s.full):
		x += uint8(s.full[p.rank].Attr)
	}
	if s.alive[to] {
		x++
	}
	if s.ringLast != nil {
		x += uint8(s.ringLast[to][0])
	}
	// A complete graph's receiver often answers its sender (bully's
	// OK to an ELECTION): fifoAt reads that link's clock, in a row
	// of N (128 MB of rows at N = 4,096), a cache miss at nearly
	// every such reply (a fifth of bully's time under a random
	// latency) unless loaded here.
	if s.linkRows != nil && p.kind == evDeliver {
		if row := s.linkRows[to]; int(p.from) < len(row) {
			x += uint8(row[p.from])
		}
	}
	return x
}

func (s *sim) initiate(p int32) {
	if !s.alive[p] {
		return
	}
	if s.res.Initiated(time.Duration(s.now)) && s.tl != nil {
		s.tl.Initiated()
	}
	s.emitProc(trial.EvInitiate, p)
	s.machines.at(p).Initiate(s.enter(p))
	s.leave()
	s.afterEvent(p)
}

// background reports whether messages of kind k belong to the runtime's
// heartbeat detector rather than to the algorithm.
func (s *sim) background(k nodes.Kind) bool {
	return s.hb != nil && (k == kindPing || k == kindPingAck)
}

// settled reports, when the next event is background traffic, whether the
// run has come to rest: nothing but heartbeats pending, for longer than the
// detector could take to notice anything.
func (s *sim) settled() bool {
	if s.core > 0 || s.now-s.lastCore < s.quietEnough {
		return false
	}
	s.res.Quiescent = true
	return true
}

// afterEvent lets the checker watch the phase of a nodes.Phased process,
// and notes the failure of a nodes.Fallible one, which ends the trial. It
// runs after every event: the test is inlined, the work out of line.
// started tells the log sink the last index of p's log once p has
// started, when p's machine holds one (nodes.LogHolder): a read, so the
// trial's events and draws are those of a run nobody asks.
func (s *sim) started(p int32) {
	if s.logs == nil {
		return
	}
	if h, ok := s.machines.at(p).(nodes.LogHolder); ok {
		s.logs.LastIndex(p, h.LastIndex())
	}
}

func (s *sim) afterEvent(p int32) {
	if s.phased || s.fallible {
		s.watch(p)
	}
}

func (s *sim) watch(p int32) {
	if s.phased {
		s.emit(&trial.Event{At: time.Duration(s.now), Kind: trial.EvPhase, P: p, Phase: s.machines.at(p).(nodes.Phased).Phase()})
	}
	if s.fallible && s.err == nil {
		s.err = s.machines.at(p).(nodes.Fallible).Err()
	}
}

// emit hands e to the events sink through a buffer the simulator reuses,
// so that an event costs no allocation (sinks must not keep the pointer:
// trial.Sink). Kept out of line: building an event inlined into the hot
// path would bloat it for the runs nobody listens to. It takes the event
// by pointer, so that the caller's event (232 bytes) is copied once, into
// the buffer, not first into the call's arguments.
//
//go:noinline
func (s *sim) emit(e *trial.Event) {
	s.evbuf = *e
	s.ev.Event(&s.evbuf)
}

// emitProc emits an event about process p, if anyone listens for its kind.
func (s *sim) emitProc(k trial.EventKind, p int32) {
	if s.want.Has(k) {
		s.emit(&trial.Event{At: time.Duration(s.now), Kind: k, P: p})
	}
}

// What sendKinds holds for a kind asked (wantsSend).
const (
	sendYes uint8 = 1 + iota
	sendNo
)

// wantsSend reports whether the sink wants the send of a message of kind
// k (sendKinds, filled as kinds are first sent); a kind registered after
// the run began (an external program's) is emitted.
func (s *sim) wantsSend(k nodes.Kind) bool {
	if s.sendKinds == nil || int(k) >= len(s.sendKinds) {
		return true
	}
	w := s.sendKinds[k]
	if w == 0 {
		w = sendNo
		if s.sendFilter.WantsSend(k) {
			w = sendYes
		}
		s.sendKinds[k] = w
	}
	return w == sendYes
}

// emitMsg emits a message event; callers check s.want first, so that the
// hot path costs one test when nobody listens. The event is built in the
// buffer, as emitDecision's: built and then copied there (emit), its 260
// bytes moved twice at every send and delivery, 6% of a raft trial at
// N = 5 whose checker wants them all (issue 42). Its buffer is its own,
// the fields it does not set zero from the trial's start: clearing all
// 260 bytes first was 1.5% of that trial.
func (s *sim) emitMsg(k trial.EventKind, ord uint64, from, to int32, m *nodes.Message) {
	e := &s.msgbuf
	e.At, e.Kind, e.ID, e.P, e.Q = time.Duration(s.now), k, ord&(1<<56-1), from, to
	e.Msg = *m
	s.ev.Event(e)
}

func (s *sim) scheduleBackground(at int64, p payload) {
	s.core-- // schedule counts every event as core; this one is not
	s.schedule(at, classTimer, p)
}

func (s *sim) schedule(at int64, class uint64, p payload) {
	slot, sp := s.slab.alloc()
	*sp = p
	s.seq++
	s.core++
	s.heap.push(entry{at: at, ord: order(class, s.seq), slot: slot, to: p.to})
}

// popped accounts for a core event leaving the queues.
func (s *sim) popped() {
	s.core--
	s.lastCore = s.now
}

func (s *sim) deliver(to, from int32, ord uint64, m *nodes.Message) {
	if !s.background(m.Kind) {
		s.popped()
	}
	if s.faulty && s.intercept(to, from, ord, m) {
		return
	}
	if !s.alive[to] {
		s.res.Dropped++
		if s.want.Has(trial.EvDrop) {
			s.emitMsg(trial.EvDrop, ord, from, to, m)
		}
		return
	}
	if s.want.Has(trial.EvRecv) {
		s.emitMsg(trial.EvRecv, ord, from, to, m)
	}
	switch m.Kind {
	case kindPing:
		s.send(to, nodes.PeerID(from), &nodes.Message{Kind: kindPingAck})
		return
	case kindPingAck:
		if s.hb != nil {
			s.hb.lastHeard[int(to)*s.n+int(from)] = s.now
		}
		return
	}
	s.res.Delivered(m.Kind, time.Duration(s.now))
	s.machines.at(to).Receive(s.enter(to), nodes.PeerID(from), *m)
	s.leave()
	s.afterEvent(to)
}

// send takes the message by pointer: it is copied once, into its queue
// entry.
func (s *sim) send(from int32, to nodes.PeerID, m *nodes.Message) {
	if to < 0 || int(to) >= s.n {
		panic(fmt.Sprintf("sim: %s process %d sent %s to peer %d, which does not exist", s.cfg.Algorithm.Name, from, m.Kind, to))
	}
	if !m.Kind.Valid() {
		panic(fmt.Sprintf("sim: %s sent an unregistered message kind %d", s.cfg.Algorithm.Name, m.Kind))
	}
	size := int64(nodes.EncodedSizeOf(m))
	election := s.res.CountSend(m.Kind, size)
	if election {
		if s.tlSends {
			s.tl.Sent(s.res.Messages)
		}
		s.electionEvent()
	}
	if s.faulty {
		s.sendFaulty(from, int32(to), m, size)
		return
	}
	if !s.background(m.Kind) {
		s.core++
	}
	s.seq++
	ord := order(classDeliver, s.seq)
	if s.want.Has(trial.EvSend) && s.wantsSend(m.Kind) {
		s.emitMsg(trial.EvSend, ord, from, int32(to), m)
	}
	if s.fifoMode {
		s.fifoPut(s.now+int64(s.t), ord, int32(to), from, m)
		if election {
			s.fifoElections++ // each delayed T exactly: noted at the end (Run)
		}
		return
	}
	at := s.now + int64(s.cfg.Latency.Sample(s.net))
	// FIFO links: a message never overtakes an earlier one on the same link;
	// at equal times the earlier send has the smaller sequence number.
	at = s.fifoAt(from, int32(to), at)
	if election {
		s.res.ElectionDelayed(time.Duration(at - s.now))
	}
	slot, p := s.slab.alloc()
	p.kind, p.to, p.from = evDeliver, int32(to), from
	s.pack(p, m, from, int32(to))
	s.heap.push(entry{at: at, ord: ord, slot: slot, to: int32(to)})
}

// fifoAt delays a delivery due at `at` on the link from → to until after
// the latest delivery already scheduled on that link (FIFO links; at equal
// times the earlier send has the smaller sequence number). Ring links, to
// the successor or predecessor, keep their state in a slice: the hot path of
// a million-process ring cannot afford a map lookup per message; those of
// a complete graph in rows by sender (linkRows). A time of 0 in a row is
// none: no delivery is due before 0.
func (s *sim) fifoAt(from, to int32, at int64) int64 {
	if s.linkRows != nil {
		row := s.linkRows[from]
		if row == nil {
			row = make([]int64, s.n)
			s.linkRows[from] = row
		}
		at = max(at, row[to])
		row[to] = at
		return at
	}
	if s.topo.IsRing() {
		n := int32(s.n)
		var slot *int64
		switch to {
		case succOf(from, n):
			slot = &s.ringLast[from][0]
		case predOf(from, n):
			slot = &s.ringLast[from][1]
		}
		if slot != nil {
			at = max(at, *slot)
			*slot = at
			return at
		}
	}
	link := uint64(from)<<32 | uint64(uint32(to))
	if last, ok := s.linkLast[link]; ok && last > at {
		at = last
	}
	s.linkLast[link] = at
	return at
}

func timerKey(p int32, t nodes.TimerID) uint64 { return uint64(p)<<16 | uint64(t) }

func (s *sim) setTimer(p int32, d time.Duration, t nodes.TimerID) {
	if int(t) <= 0 || int(t) >= nodes.NumTimers() {
		panic(fmt.Sprintf("sim: %s armed an unregistered timer %d", s.cfg.Algorithm.Name, t))
	}
	st := s.timer(p, t)
	st.gen++
	st.armed = true
	s.putTimer(p, t, st)
	if s.want.Has(trial.EvArm) {
		s.emit(&trial.Event{At: time.Duration(s.now), Kind: trial.EvArm, P: p, Timer: t, ID: uint64(max(d, 0))})
	}
	s.schedule(s.now+int64(max(d, 0)), classTimer, payload{kind: evTimer, to: p, sub: uint16(t), gen: st.gen})
}

func (s *sim) cancelTimer(p int32, t nodes.TimerID) {
	if st := s.timer(p, t); st.armed {
		st.gen++
		st.armed = false
		s.putTimer(p, t, st)
	}
}

// smallRows is the largest trial whose link clocks are made all at once
// (linkRows).
const smallRows = 64

// timerTabMax bounds a trial's timer table (timerTab), in timers. A
// variable, as wheelFrom, for the tests.
var timerTabMax = 1 << 12

// timer is the state of p's timer t: zero, disarmed, before it is first
// armed.
func (s *sim) timer(p int32, t nodes.TimerID) timerState {
	if int(t) < s.timerW {
		return s.timerTab[int(p)*s.timerW+int(t)]
	}
	return s.timers[timerKey(p, t)]
}

// putTimer sets the state of p's timer t.
func (s *sim) putTimer(p int32, t nodes.TimerID, st timerState) {
	if int(t) < s.timerW {
		s.timerTab[int(p)*s.timerW+int(t)] = st
		return
	}
	s.timers[timerKey(p, t)] = st
}

func (s *sim) fire(p int32, t nodes.TimerID, gen uint32) {
	s.popped()
	st := s.timer(p, t)
	if !st.armed || st.gen != gen || !s.alive[p] {
		return // cancelled or re-armed since, or its process crashed
	}
	st.armed = false
	s.putTimer(p, t, st)
	s.res.CountFire(t)
	if t.IsElection() {
		s.electionEvent()
	}
	if s.want.Has(trial.EvTimer) {
		s.emit(&trial.Event{At: time.Duration(s.now), Kind: trial.EvTimer, P: p, Timer: t})
	}
	s.machines.at(p).Timeout(s.enter(p), t)
	s.leave()
	s.afterEvent(p)
}

// decide reads the leader where it lies: a ring of ten million processes
// decides ten million times, and each copy of a rank copied just before
// waits for the copy to complete.
func (s *sim) decide(p int32, leader *nodes.Rank) {
	s.res.Decided(int(p), leader, time.Duration(s.now))
	s.lastDecided = p
	s.electionEvent()
	if s.want.Has(trial.EvDecide) {
		if s.decider != nil {
			// Through the interface the pointer would escape, and every
			// decision allocate its leader: hand over the simulator's copy.
			s.leader = *leader
			s.decider.EventDecide(time.Duration(s.now), p, &s.leader)
		} else {
			s.emitDecision(p, leader)
		}
	}
	if s.tl != nil {
		s.tl.Decided()
	}
}

// emitDecision is emit for a decision, the event a run emits most (a ring
// of ten million processes decides ten million times): the event is built
// in the buffer rather than built and copied into it.
//
//go:noinline
func (s *sim) emitDecision(p int32, leader *nodes.Rank) {
	e := &s.evbuf
	*e = trial.Event{}
	e.At, e.Kind, e.P, e.Leader = time.Duration(s.now), trial.EvDecide, p, *leader
	s.ev.Event(e)
}

// detectRand is the inaccurate detector's stream, made at its first draw:
// most trials never draw from it (issue 42).
func (s *sim) detectRand() *rand.Rand {
	if s.detRand == nil {
		s.detRand = rand.New(rand.NewPCG(s.cfg.Seed, 0x646574656374)) // "detect"
	}
	return s.detRand
}

func (s *sim) rand(p int32) *rand.Rand {
	if s.rands == nil {
		s.rands = reuse(s.spare.kept.rands, s.n)
	}
	if r := s.rands[p]; r != nil {
		return r
	}
	var r *rand.Rand
	if s.cfg.Draws == nil && s.cfg.Record == nil && int(p) < spareStreams {
		r = s.spare.procRand(int(p), s.cfg.Seed)
	} else {
		r = trial.ProcessDrawsRand(s.cfg.Seed, int(p), s.cfg.Draws, s.cfg.Record)
	}
	s.rands[p] = r
	return r
}

// env is the nodes.Env the machines see, standing for the process whose
// handler runs (sim.enter).
type env struct {
	s    *sim
	p    int32
	busy bool
}

// enter makes the shared Env stand for process p while its machine
// handles one event; leave ends that. Handlers never run inside one
// another (what a handler causes is scheduled, not run), and enter checks
// it: a nested handler would otherwise act in the name of the wrong
// process.
func (s *sim) enter(p int32) *env {
	if s.env.busy {
		panic(fmt.Sprintf("sim: a handler of process %d ran inside one of process %d", p, s.env.p))
	}
	s.env.p, s.env.busy = p, true
	return &s.env
}

func (s *sim) leave() { s.env.busy = false }

func (e *env) Self() nodes.Rank { return *e.s.rank(e.p) }

// rank is the rank of position p. A rank built from a small identity
// when asked for is a value written in parts (zeroed in 16-byte stores,
// the identity in 8) and read back at once in 16-byte loads, which cannot
// take their bytes from those stores: each such read waits for the
// stores to reach the cache, a fifth of a ten-million ring's run.
// So ranks are built a window of positions at a time, and read when the
// stores are long done: a ring's processes are visited in order under
// constant latency (elsewhere newSim builds every rank whole).
func (s *sim) rank(p int32) *nodes.Rank {
	if s.full != nil {
		return &s.full[p]
	}
	return s.windowRank(p)
}

func (s *sim) windowRank(p int32) *nodes.Rank {
	i := uint32(p - s.win.base)
	if i >= rankWindowLen {
		s.fillWindow(p)
		i = uint32(p - s.win.base)
	}
	return &s.win.r[i]
}

// rankWindowLen is how many positions' ranks rankWindow holds: 768 bytes.
const rankWindowLen = 16

// rankWindow holds the ranks of positions base, base+1, … whole.
type rankWindow struct {
	base int32
	r    [rankWindowLen]nodes.Rank
}

// fillWindow builds the ranks of the window that holds position p.
//
//go:noinline
func (s *sim) fillWindow(p int32) {
	base := p &^ (rankWindowLen - 1)
	ids := s.small[base:min(int(base)+rankWindowLen, len(s.small))]
	for i, id := range ids {
		s.win.r[i].ID[3] = uint64(id) // the other words stay zero
	}
	s.win.base = base
}

// LoadStable and SaveStable are nodes.StableStore: the bytes outlive the
// machine (restart makes a fresh one) but not the trial.
func (e *env) LoadStable() []byte {
	if e.s.stable == nil || len(e.s.stable[e.p]) == 0 {
		return nil // nothing saved (a kept array of an earlier trial's is empty, not nil)
	}
	return e.s.stable[e.p]
}

func (e *env) SaveStable(b []byte) {
	st := e.s.stableStore()
	st[e.p] = append(st[e.p][:0], b...)
}

func (e *env) AppendStable(b []byte) {
	st := e.s.stableStore()
	st[e.p] = append(st[e.p], b...)
}

// stableStore is the processes' stable bytes, made at the first save: the
// arrays of an earlier trial of the worker, emptied (kept), when it left
// them.
func (s *sim) stableStore() [][]byte {
	if s.stable == nil {
		s.stable = s.spare.kept.stable
		if len(s.stable) != s.n {
			s.stable = make([][]byte, s.n)
		}
	}
	return s.stable
}

// Peers computes a ring's links rather than storing 2N of them: the slice
// is the simulator's, valid until the next call (nodes.Env).
func (e *env) Peers() []nodes.Peer {
	s := e.s
	if !s.topo.IsRing() {
		return s.peers
	}
	n := int32(s.n)
	succ := succOf(e.p, n)
	// Field by field: a Peer built whole goes through a temporary whose
	// copy stalls on the stores that built it (Rank's doc).
	s.ringPeer[0].ID, s.ringPeer[0].Rank = nodes.PeerID(succ), *s.rank(succ)
	if s.topo == nodes.RingUni {
		return s.ringPeer[:1:1]
	}
	pred := predOf(e.p, n)
	s.ringPeer[1].ID, s.ringPeer[1].Rank = nodes.PeerID(pred), *s.rank(pred)
	return s.ringPeer[:2:2]
}

// succOf and predOf are the successor and the predecessor of position p on
// a ring of n, 0 ≤ p < n: (p+1) mod n and (p−1) mod n without a division,
// which costs more than everything else Peers or fifoAt does (each runs
// once a process, or once a message, on a ring of millions).
func succOf(p, n int32) int32 {
	if p == n-1 {
		return 0
	}
	return p + 1
}

func predOf(p, n int32) int32 {
	if p == 0 {
		return n - 1
	}
	return p - 1
}

func (e *env) After(p nodes.PeerID) (nodes.Peer, bool) {
	if !e.s.topo.IsRing() || p < 0 || int(p) >= e.s.n {
		return nodes.Peer{}, false
	}
	j := (int(p) + 1) % e.s.n
	return nodes.Peer{ID: nodes.PeerID(j), Rank: e.s.ranks.At(j)}, true
}

func (e *env) Now() time.Duration                        { return time.Duration(e.s.now) }
func (e *env) Send(to nodes.PeerID, m nodes.Message)     { e.s.send(e.p, to, &m) }
func (e *env) SetTimer(d time.Duration, t nodes.TimerID) { e.s.setTimer(e.p, d, t) }
func (e *env) CancelTimer(t nodes.TimerID)               { e.s.cancelTimer(e.p, t) }
func (e *env) Decide(leader nodes.Rank)                  { e.s.decide(e.p, &leader) }
func (e *env) Rand() *rand.Rand                          { return e.s.rand(e.p) }

// Note keeps a machine's note in the trace (nodes.Noter).
func (e *env) Note(text string) {
	if e.s.want.Has(trial.EvNote) {
		e.s.emit(&trial.Event{At: time.Duration(e.s.now), Kind: trial.EvNote, P: e.p, What: text})
	}
}

// sortPeers orders peers by ascending rank. A small trial's few are sorted
// in place by insertion, as slices.SortFunc sorts 12 or fewer, with the
// same comparisons and moves, so equal ranks (an anonymous ring) end in the
// same order: its call a comparison, each copying two peers, was 0.7% of
// a raft trial's CPU at N = 5 (issue 42).
func sortPeers(p []nodes.Peer) {
	if len(p) > 12 {
		slices.SortFunc(p, func(a, b nodes.Peer) int { return a.Rank.Cmp(&b.Rank) })
		return
	}
	for i := 1; i < len(p); i++ {
		for j := i; j > 0 && p[j].Rank.Cmp(&p[j-1].Rank) < 0; j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
}
