package sim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"

	"github.com/electbench/electbench/nodes"
)

// Config describes one trial.
type Config struct {
	Algorithm  *nodes.Algorithm
	Variant    string       // "" for the algorithm's default
	Params     nodes.Params // algorithm parameters, as typed by the user
	Ranks      []nodes.Rank // one per process, by position (ring order: successor = next); distinct and non-zero
	Initiators []int        // positions told to initiate at time 0, in this order
	Latency    Latency      // link latency model; its mean is T
	Seed       uint64       // seeds every random draw of the trial
	Deadline   time.Duration
	// Trace, when set, receives every event as one JSON object per line.
	Trace io.Writer
	// Observer, when set, is told of every decision as it happens.
	Observer Observer
	// Crashes are the crash-stop faults of the trial.
	Crashes []Crash
	// Faults is the trial's fault timeline (effects.go): network effects,
	// crashes and restarts, pauses, false suspicions, each resolved when it
	// starts. Crashes are applied as the first faults of the timeline.
	Faults []Fault
	// Detector is the failure detector; the zero value means
	// DefaultDetector (perfect with D = 10T).
	Detector Detector
}

// Observer watches a run as it happens (the checker).
type Observer interface {
	// Decided reports a decision.
	Decided(at time.Duration, p int, leader nodes.Rank)
	// Crashed reports a crash.
	Crashed(at time.Duration, p int)
	// Phase reports the phase of a nodes.Phased process after every event
	// it handled.
	Phase(at time.Duration, p int, phase string)
}

// DefaultDeadline is the virtual time after which a run that has not gone
// quiet is stopped: generous for every algorithm of ALGORITHMS.md, whose
// turnarounds are at most a few N·T.
func DefaultDeadline(n int, t time.Duration) time.Duration {
	return time.Duration(100*n+1000) * t
}

// Decision is a process's latest belief about the leader.
type Decision struct {
	Leader nodes.Rank
	At     time.Duration // when the latest decision was made
	Count  int32         // decisions made; 0 means never decided
}

// Result is what the runtime counted in one trial.
type Result struct {
	N         int
	T         time.Duration // mean one-way latency
	Sent      []int64       // messages sent, by nodes.Kind
	SentBytes []int64       // encoded bytes sent, by nodes.Kind
	Fired     []int64       // timer expirations, by nodes.TimerID
	Messages  int64         // election-class messages sent
	Bytes     int64         // encoded bytes of all messages sent
	Timeouts  int64         // timer expirations
	Decisions []Decision    // by position
	// FirstInitiation is when the first process started or was told to
	// initiate; LastElection when the last election message was delivered
	// (negative if none was).
	FirstInitiation, LastElection time.Duration
	Events                        int64         // events processed
	Quiescent                     bool          // the run came to rest before the deadline
	End                           time.Duration // virtual time of the last event processed
	Dropped                       int64         // messages lost because their receiver had crashed
	Crashes                       []CrashRecord // every crash, in order
	Alive                         []bool        // by position, at the end
	Detector                      Detector      // the detector that ran
	// Lost counts messages a fault lost (a cut link, loss, a data limit);
	// Duplicated the extra copies a fault delivered.
	Lost, Duplicated int64
	// Faults is the schedule the trial applied: every start and heal, with
	// its time and resolved targets.
	Faults []FaultEvent
}

// MessagesByKind returns the non-zero message counts by kind name.
func (r *Result) MessagesByKind() map[string]int64 { return byName(r.Sent, kindName) }

// TimeoutsByKind returns the non-zero timer counts by timer name.
func (r *Result) TimeoutsByKind() map[string]int64 { return byName(r.Fired, timerName) }

func kindName(i int) string  { return nodes.Kind(i).String() }
func timerName(i int) string { return nodes.TimerID(i).String() }

func byName(counts []int64, name func(int) string) map[string]int64 {
	m := map[string]int64{}
	for i, n := range counts {
		if n != 0 {
			m[name(i)] += n
		}
	}
	return m
}

// payload kinds of heap events.
const (
	evDeliver uint8 = iota
	evTimer
	evInitiate
	evSuspect   // to suspects from
	evHeartbeat // detector tick of process to (gen: its incarnation)
	evFault     // fault number gen starts
	evFaultEnd  // fault number gen heals
)

type payload struct {
	kind     uint8
	to, from int32
	timer    nodes.TimerID
	gen      uint32
	msg      nodes.Message
}

type timerState struct {
	gen   uint32
	armed bool
}

// sim is the state of one running trial.
type sim struct {
	cfg      Config
	n        int
	t        time.Duration
	deadline int64
	procs    []proc       // by position: machine, rank and hot per-process state
	ranks    []nodes.Rank // Config.Ranks
	peers    []nodes.Peer // shared backing store for Env.Peers
	topo     nodes.Topology

	now      int64
	seq      uint64
	fifoMode bool
	faulty   bool // Config.Faults is not empty: only then do sends and deliveries look at link effects
	fifo     fifo
	heap     queue // a radix heap when fifoMode is off, a 4-ary heap beside the FIFO otherwise
	slab     slab
	linkLast map[uint64]int64 // per directed link: latest delivery time (FIFO links)
	timers   map[uint64]timerState

	net   *rand.Rand
	rands []*rand.Rand

	byRank      map[nodes.Rank]int
	lastDecided int32 // position of the latest decision; -1 before any
	det         Detector
	detRand     *rand.Rand
	hb          *heartbeats
	afterMsgs   []pend // faults waiting for a message count
	onElected   []pend // faults waiting for the first decision
	phased      bool   // machines implement nodes.Phased

	// Background events (heartbeat ticks and pings) do not keep a run
	// alive: it comes to rest when no other event is pending and nothing
	// has happened for longer than a detector could still take to notice.
	core        int64 // pending non-background events
	lastCore    int64 // time of the latest non-background event
	quietEnough int64 // the quiet period that ends a run with heartbeats
	fifoCore    int64 // of which in the FIFO queue

	res   Result
	trace *tracer
	sink  uint8 // see warm

	// Faults (effects.go), kept after the hot fields.
	newMachine  func() nodes.Machine
	faults      []Fault // Config.Crashes, then Config.Faults
	fstate      []faultState
	links       []*activeLink // link effects in force, in activation order
	onStart     []pend        // faults waiting for the first initiation
	paused      []bool        // by position; nil without pause faults
	held        [][]held      // events withheld from paused processes
	incarnation []uint32      // by position: restarts, for heartbeat ticks
	fr          *rand.Rand    // the fault stream
}

// Run executes one trial and returns what the runtime counted. It fails only
// on an invalid configuration or an algorithm that rejects its parameters;
// an algorithm that misbehaves (sends to a process that does not exist, an
// unregistered kind) is a bug and panics with a readable message.
func Run(cfg Config) (*Result, error) {
	s, err := newSim(cfg)
	if err != nil {
		return nil, err
	}
	s.run()
	s.res.Alive = make([]bool, s.n)
	for i := range s.procs {
		s.res.Alive[i] = s.procs[i].alive
	}
	if s.trace != nil {
		if err := s.trace.flush(); err != nil {
			return &s.res, fmt.Errorf("writing trace: %w", err)
		}
	}
	return &s.res, nil
}

func newSim(cfg Config) (*sim, error) {
	n := len(cfg.Ranks)
	switch {
	case cfg.Algorithm == nil:
		return nil, errors.New("sim: no algorithm")
	case cfg.Latency == nil:
		return nil, errors.New("sim: no latency model")
	case n < 2:
		return nil, fmt.Errorf("sim: %d processes; an election needs at least 2", n)
	case n > 1<<30:
		return nil, fmt.Errorf("sim: %d processes is more than the simulator addresses", n)
	}
	for _, p := range cfg.Initiators {
		if p < 0 || p >= n {
			return nil, fmt.Errorf("sim: initiator position %d out of range 0..%d", p, n-1)
		}
	}
	for i, r := range cfg.Ranks {
		if r.IsZero() {
			return nil, fmt.Errorf("sim: process %d has the zero rank", i)
		}
	}
	for _, c := range cfg.Crashes {
		if err := c.validate(n); err != nil {
			return nil, err
		}
	}
	variant := cfg.Variant
	if variant == "" {
		variant = cfg.Algorithm.Variants[0].Name
	}
	t := cfg.Latency.Mean()
	if err := cfg.Algorithm.CheckParams(cfg.Params); err != nil {
		return nil, err
	}
	newMachine, err := cfg.Algorithm.New(nodes.Config{Variant: variant, Params: cfg.Params, N: n, T: t})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Algorithm.Name, err)
	}
	deadline := cfg.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline(n, t)
	}
	s := &sim{
		cfg: cfg, n: n, t: t, deadline: int64(deadline),
		ranks:    cfg.Ranks,
		topo:     cfg.Algorithm.Topology,
		fifoMode: cfg.Latency.Constant(),
		linkLast: map[uint64]int64{},
		timers:   map[uint64]timerState{},
		net:      rand.New(rand.NewPCG(cfg.Seed, 0x6e6574776f726b)), // "network"
		rands:    make([]*rand.Rand, n),
		procs:    make([]proc, n),
	}
	s.det = cfg.Detector
	if s.det.Kind == "" {
		s.det = DefaultDetector(t)
	}
	s.detRand = rand.New(rand.NewPCG(cfg.Seed, 0x646574656374)) // "detect"
	for i := range s.procs {
		s.procs[i] = proc{s: s, p: int32(i), m: newMachine(), rank: cfg.Ranks[i], alive: true}
	}
	s.lastDecided = -1
	if s.det.Kind == "heartbeat" {
		s.hb = &heartbeats{lastHeard: make([]int64, n*n), suspected: make([]bool, n*n)}
		s.incarnation = make([]uint32, n)
		s.quietEnough = int64(s.det.Tau + 2*s.det.P + 4*t)
	}
	s.res = Result{
		N: n, T: t,
		Sent:         make([]int64, nodes.NumKinds()),
		SentBytes:    make([]int64, nodes.NumKinds()),
		Fired:        make([]int64, nodes.NumTimers()),
		Decisions:    make([]Decision, n),
		LastElection: -1, FirstInitiation: -1,
		Detector: s.det,
	}
	s.newMachine = newMachine
	if err := s.initFaults(); err != nil {
		return nil, err
	}
	// With constant latency, deliveries wait in the FIFO queue and only
	// timers and control events in the heap; events of the FIFO run first at
	// their time and may schedule heap events earlier than the heap's least,
	// which a radix heap does not allow.
	if s.fifoMode {
		s.heap = &heap4{}
	} else {
		s.heap = &radix{warm: s.warm}
	}
	s.buildPeers()
	if s.cfg.Observer != nil {
		_, s.phased = s.procs[0].m.(nodes.Phased)
	}
	if cfg.Trace != nil {
		s.trace = &tracer{w: bufio.NewWriterSize(cfg.Trace, 1<<16)}
	}
	return s, nil
}

func (s *sim) buildPeers() {
	n := s.n
	switch s.topo {
	case nodes.RingUni:
		s.peers = make([]nodes.Peer, n)
		for i := range n {
			j := (i + 1) % n
			s.peers[i] = nodes.Peer{ID: nodes.PeerID(j), Rank: s.ranks[j]}
		}
	case nodes.RingBi:
		s.peers = make([]nodes.Peer, 2*n)
		for i := range n {
			succ, pred := (i+1)%n, (i+n-1)%n
			s.peers[2*i] = nodes.Peer{ID: nodes.PeerID(succ), Rank: s.ranks[succ]}
			s.peers[2*i+1] = nodes.Peer{ID: nodes.PeerID(pred), Rank: s.ranks[pred]}
		}
	case nodes.Complete:
		s.peers = make([]nodes.Peer, n)
		for i := range n {
			s.peers[i] = nodes.Peer{ID: nodes.PeerID(i), Rank: s.ranks[i]}
		}
		sortPeers(s.peers)
	}
}

func (s *sim) run() {
	// Faults at the start happen before anyone boots: a crashed process
	// never starts, and exactly the initiators suspect it at time 0.
	s.startFaults()
	// Boot every live process, then the workload's initiations, all at time 0.
	if s.cfg.Algorithm.StartsAll {
		s.res.FirstInitiation = 0
	}
	for i := range s.procs {
		if !s.procs[i].alive {
			continue
		}
		s.trace.event(0, "start", i)
		s.procs[i].m.Start(&s.procs[i])
		s.afterEvent(int32(i))
	}
	for _, p := range s.cfg.Initiators {
		s.schedule(0, classControl, payload{kind: evInitiate, to: int32(p)})
	}
	s.armFaults()
	if s.cfg.Algorithm.StartsAll && len(s.onStart) > 0 {
		s.electionStarted()
	}
	s.scheduleFalseSuspicions()
	if s.hb != nil {
		for p := range int32(s.n) {
			s.scheduleBackground(0, payload{kind: evHeartbeat, to: p})
		}
	}
	for {
		var at int64
		fromFifo := false
		switch {
		case s.fifo.len() > 0 && s.heap.len() > 0:
			f, h := s.fifo.peek(), s.heap.peek()
			fromFifo = f.at < h.at || (f.at == h.at && f.ord < h.ord)
			at = min(f.at, h.at)
		case s.fifo.len() > 0:
			fromFifo, at = true, s.fifo.peek().at
		case s.heap.len() > 0:
			at = s.heap.peek().at
		default:
			s.res.Quiescent = true
			return
		}
		if at > s.deadline {
			return
		}
		s.now = at
		if fromFifo {
			d := s.fifo.pop()
			if s.background(d.msg.Kind) && s.settled() {
				return
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
		if (p.kind == evHeartbeat || p.kind == evDeliver && s.background(p.msg.Kind)) && s.settled() {
			return
		}
		if s.paused != nil && p.kind != evDeliver && p.kind < evFault && s.paused[p.to] {
			// A paused process handles nothing: keep the event for later.
			if p.kind != evHeartbeat {
				s.popped()
			}
			s.hold(p.to, *p, e.ord, p.kind == evHeartbeat)
			s.slab.release(e.slot)
			continue
		}
		s.res.End = time.Duration(at)
		s.res.Events++
		switch p.kind {
		case evDeliver:
			s.deliver(e.to, p.from, e.ord, &p.msg)
		case evTimer:
			s.fire(p.to, p.timer, p.gen)
		case evInitiate:
			s.popped()
			s.initiate(p.to)
		case evSuspect:
			s.popped()
			s.suspect(p.to, p.from)
		case evFault:
			s.popped()
			s.activate(int(p.gen), false)
		case evFaultEnd:
			s.popped()
			s.heal(int(p.gen))
		case evHeartbeat:
			s.heartbeat(p.to, p.gen)
		}
		s.slab.release(e.slot)
	}
}

// warm loads the payload, the process and the machine of events about to
// run, so that their cache misses overlap (radix.warm) instead of coming
// one after another when each event runs. The loaded bytes are summed into
// s.sink only so that the loads are not optimised away.
func (s *sim) warm(next []entry) {
	var x uint8
	for i := range next {
		e := &next[i]
		// A payload and a proc each span two cache lines: load a byte of
		// each line.
		p, pr := s.slab.at(e.slot), &s.procs[e.to]
		x += p.kind + uint8(p.msg.B) + *(*uint8)(machineData(&pr.m))
		if pr.alive {
			x++
		}
	}
	s.sink += x
}

// machineData is the data word of a machine interface: for every machine
// type a pointer to valid memory (the machine, or zerobase for an empty
// struct), whose first byte warm may read. A nil machine never reaches it:
// a process is given one before any event.
func machineData(m *nodes.Machine) unsafe.Pointer {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(m))[1]
}

func (s *sim) initiate(p int32) {
	if !s.procs[p].alive {
		return
	}
	if s.res.FirstInitiation < 0 {
		s.res.FirstInitiation = time.Duration(s.now)
		if len(s.onStart) > 0 {
			s.electionStarted()
		}
	}
	s.trace.event(s.now, "initiate", int(p))
	s.procs[p].m.Initiate(&s.procs[p])
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

// afterEvent lets the checker watch the phase of a nodes.Phased process.
func (s *sim) afterEvent(p int32) {
	if s.phased {
		s.cfg.Observer.Phase(time.Duration(s.now), int(p), s.procs[p].m.(nodes.Phased).Phase())
	}
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
	if !s.procs[to].alive {
		s.res.Dropped++
		if s.trace != nil {
			s.trace.message(s.now, "drop", ord, from, to, m)
		}
		return
	}
	if s.trace != nil {
		s.trace.message(s.now, "recv", ord, from, to, m)
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
	if m.Kind.IsElection() {
		s.res.LastElection = time.Duration(s.now)
	}
	pr := &s.procs[to]
	pr.m.Receive(pr, nodes.PeerID(from), *m)
	s.afterEvent(to)
}

// send takes the message by pointer: it is copied once, into its queue
// entry.
func (s *sim) send(from int32, to nodes.PeerID, m *nodes.Message) {
	if to < 0 || int(to) >= s.n {
		panic(fmt.Sprintf("sim: %s process %d sent %s to peer %d, which does not exist", s.cfg.Algorithm.Name, from, m.Kind, to))
	}
	if !m.Kind.Valid() || int(m.Kind) >= len(s.res.Sent) {
		panic(fmt.Sprintf("sim: %s sent an unregistered message kind %d", s.cfg.Algorithm.Name, m.Kind))
	}
	size := int64(m.EncodedSize())
	s.res.Sent[m.Kind]++
	s.res.SentBytes[m.Kind] += size
	s.res.Bytes += size
	if m.Kind.IsElection() {
		s.res.Messages++
		if len(s.afterMsgs) > 0 {
			s.checkMessageTriggers()
		}
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
	if s.trace != nil {
		s.trace.message(s.now, "send", ord, from, int32(to), m)
	}
	if s.fifoMode {
		d := s.fifo.slot()
		d.at, d.ord, d.to, d.from, d.msg = s.now+int64(s.t), ord, int32(to), from, *m
		return
	}
	at := s.now + int64(s.cfg.Latency.Sample(s.net))
	// FIFO links: a message never overtakes an earlier one on the same link;
	// at equal times the earlier send has the smaller sequence number.
	at = s.fifoAt(from, int32(to), at)
	slot, p := s.slab.alloc()
	p.kind, p.to, p.from, p.msg = evDeliver, int32(to), from, *m
	s.heap.push(entry{at: at, ord: ord, slot: slot, to: int32(to)})
}

// fifoAt delays a delivery due at `at` on the link from → to until after
// the latest delivery already scheduled on that link (FIFO links; at equal
// times the earlier send has the smaller sequence number). Ring links, to
// the successor or predecessor, keep their state in a slice: the hot path of
// a million-process ring cannot afford a map lookup per message.
func (s *sim) fifoAt(from, to int32, at int64) int64 {
	if s.topo.IsRing() {
		n := int32(s.n)
		var slot *int64
		switch to {
		case (from + 1) % n:
			slot = &s.procs[from].ringLast[0]
		case (from + n - 1) % n:
			slot = &s.procs[from].ringLast[1]
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
	if int(t) <= 0 || int(t) >= len(s.res.Fired) {
		panic(fmt.Sprintf("sim: %s armed an unregistered timer %d", s.cfg.Algorithm.Name, t))
	}
	k := timerKey(p, t)
	st := s.timers[k]
	st.gen++
	st.armed = true
	s.timers[k] = st
	s.schedule(s.now+int64(max(d, 0)), classTimer, payload{kind: evTimer, to: p, timer: t, gen: st.gen})
}

func (s *sim) cancelTimer(p int32, t nodes.TimerID) {
	k := timerKey(p, t)
	if st, ok := s.timers[k]; ok && st.armed {
		st.gen++
		st.armed = false
		s.timers[k] = st
	}
}

func (s *sim) fire(p int32, t nodes.TimerID, gen uint32) {
	s.popped()
	k := timerKey(p, t)
	st := s.timers[k]
	if !st.armed || st.gen != gen || !s.procs[p].alive {
		return // cancelled or re-armed since, or its process crashed
	}
	st.armed = false
	s.timers[k] = st
	s.res.Fired[t]++
	s.res.Timeouts++
	s.trace.timer(s.now, int(p), t)
	s.procs[p].m.Timeout(&s.procs[p], t)
	s.afterEvent(p)
}

func (s *sim) decide(p int32, leader nodes.Rank) {
	d := &s.res.Decisions[p]
	d.Leader, d.At = leader, time.Duration(s.now)
	d.Count++
	s.lastDecided = p
	s.trace.decide(s.now, int(p), leader)
	if s.cfg.Observer != nil {
		s.cfg.Observer.Decided(time.Duration(s.now), int(p), leader)
	}
	if len(s.onElected) > 0 {
		s.leaderElected()
	}
}

func (s *sim) rand(p int32) *rand.Rand {
	if r := s.rands[p]; r != nil {
		return r
	}
	r := rand.New(rand.NewPCG(s.cfg.Seed, mix(uint64(p)+1)))
	s.rands[p] = r
	return r
}

// mix is splitmix64's finaliser: distinct inputs give unrelated streams.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// proc is one simulated process: its machine, the nodes.Env the machine
// sees (proc itself) and the state the hot path reads per event, together,
// so that an event for a random process of a million touches one place in
// memory rather than one per array.
type proc struct {
	s        *sim
	m        nodes.Machine
	rank     nodes.Rank
	ringLast [2]int64 // FIFO ring links: latest delivery time to the successor, to the predecessor
	p        int32
	alive    bool
}

func (e *proc) Self() nodes.Rank { return e.rank }

func (e *proc) Peers() []nodes.Peer {
	switch e.s.topo {
	case nodes.RingUni:
		return e.s.peers[e.p : e.p+1 : e.p+1]
	case nodes.RingBi:
		return e.s.peers[2*e.p : 2*e.p+2 : 2*e.p+2]
	}
	return e.s.peers
}

func (e *proc) After(p nodes.PeerID) (nodes.Peer, bool) {
	if !e.s.topo.IsRing() || p < 0 || int(p) >= e.s.n {
		return nodes.Peer{}, false
	}
	j := (int(p) + 1) % e.s.n
	return nodes.Peer{ID: nodes.PeerID(j), Rank: e.s.ranks[j]}, true
}

func (e *proc) Now() time.Duration                        { return time.Duration(e.s.now) }
func (e *proc) Send(to nodes.PeerID, m nodes.Message)     { e.s.send(e.p, to, &m) }
func (e *proc) SetTimer(d time.Duration, t nodes.TimerID) { e.s.setTimer(e.p, d, t) }
func (e *proc) CancelTimer(t nodes.TimerID)               { e.s.cancelTimer(e.p, t) }
func (e *proc) Decide(leader nodes.Rank)                  { e.s.decide(e.p, leader) }
func (e *proc) Rand() *rand.Rand                          { return e.s.rand(e.p) }

// sortPeers orders peers by ascending rank.
func sortPeers(p []nodes.Peer) {
	slices.SortFunc(p, func(a, b nodes.Peer) int { return a.Rank.Compare(b.Rank) })
}
