package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/pow"
)

// The runtime's own kinds and timers, shared by name with the simulator's
// heartbeat detector so counts agree across runtimes.
var (
	kindPing    = trial.KindPing
	kindPingAck = trial.KindPingAck
	timerSusp   = trial.TimerSuspect
)

// Options configure one node process.
type Options struct {
	// Identity is this node's minted identity and key (see LoadOrMint).
	Identity *pow.Key
	// Show is the identity presented to peers; nil means Identity's own.
	// Only tests of refusal set it (see Forge).
	Show *pow.Identity
	// Listener accepts peers' connections; nil listens on 127.0.0.1:0.
	Listener net.Listener
	// Dial opens a connection to a link's address; nil uses TCP.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// Mono reads the host's shared monotonic clock in nanoseconds, the clock
	// of the harness's t0; nil uses Mono.
	Mono func() int64
	// Log receives diagnostics, one line each; nil discards them.
	Log io.Writer
	// HandshakeTimeout bounds each handshake; 0 means 10 s.
	HandshakeTimeout time.Duration
}

// event kinds funnelled into the node's goroutine.
type evKind uint8

const (
	evMsg      evKind = iota // a message from a peer (or from itself)
	evTimer                  // a machine timer expired
	evCmd                    // a command from the harness
	evCmdEnd                 // the control channel closed or failed
	evLinkUp                 // an outgoing link completed its handshake
	evLinkDown               // an outgoing link broke
	evRefused                // a handshake refused an identity
)

type event struct {
	kind  evKind
	from  int
	msg   nodes.Message
	size  int
	timer nodes.TimerID
	gen   uint64
	cmd   Command
	conn  net.Conn
	err   error
	side  string
}

type timer struct {
	gen   uint64
	armed bool
	t     *time.Timer
}

// link is one outgoing link. Only the node's goroutine writes to conn.
type link struct {
	to      int
	addr    string
	conn    net.Conn // nil while down
	final   bool     // up once, or refused: counts towards "linked"
	refused bool
	down    error // why the link last went down
}

// node is one running process.
type node struct {
	o    Options
	out  *bufio.Writer
	hs   *Handshaker
	ln   net.Listener
	mono func() int64

	events chan event
	done   chan struct{}
	wg     sync.WaitGroup

	cfg     Config
	alg     *nodes.Algorithm
	machine nodes.Machine
	phased  nodes.Phased
	n, self int
	ranks   []nodes.Rank
	byID    map[nodes.ID]int
	topo    nodes.Topology
	peers   []nodes.Peer
	links   []*link // by position; nil where no link is configured
	linked  bool
	rnd     *rand.Rand

	started bool
	start   time.Time // t0 on this process's clock
	early   []event   // messages that arrived before start

	timers map[nodes.TimerID]*timer
	armed  int

	hbTicker  *time.Ticker
	lastHeard []time.Duration
	suspected []bool

	inMu sync.Mutex
	in   map[net.Conn]bool // accepted connections, closed at stop

	framesSent, framesRecv [numFrameKinds]atomic.Int64
	refusals               atomic.Int64
	sent, recv, dropped    []int64 // by nodes.Kind
	fired                  []int64 // by nodes.TimerID
	bytes, bytesRecv       int64
	steps                  int64

	cur  step
	wbuf []byte
	line []byte
}

// Run runs one node: it listens, says hello on out, then obeys the commands
// read from in until stop, the end of in, or ctx. It returns nil after a
// stop and an error otherwise; every goroutine it started has ended when it
// returns.
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	if o.Identity == nil {
		return errors.New("live: no identity")
	}
	n := &node{
		o:      o,
		out:    bufio.NewWriterSize(out, 64<<10),
		events: make(chan event, 4096),
		done:   make(chan struct{}),
		mono:   o.Mono,
		timers: map[nodes.TimerID]*timer{},
		in:     map[net.Conn]bool{},
		sent:   make([]int64, nodes.NumKinds()),
		recv:   make([]int64, nodes.NumKinds()),
		fired:  make([]int64, nodes.NumTimers()),
	}
	n.dropped = make([]int64, nodes.NumKinds())
	if n.mono == nil {
		n.mono = Mono
	}
	n.hs = &Handshaker{Key: o.Identity, Show: o.Show, Timeout: o.HandshakeTimeout, Count: n.countFrame}
	n.ln = o.Listener
	if n.ln == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("live: listening: %w", err)
		}
		n.ln = ln
	}
	defer n.shutdown()
	file, err := pow.Encode(n.hs.shown())
	if err != nil {
		return fmt.Errorf("live: encoding the identity: %w", err)
	}
	n.report(Report{Type: "hello", Addr: n.ln.Addr().String(), Identity: string(file), PID: os.Getpid(),
		Kinds: KindNames(), Timers: TimerNames()})
	if err := n.out.Flush(); err != nil {
		return fmt.Errorf("live: control channel: %w", err)
	}
	// The command reader is not waited for: a blocked read of in cannot be
	// interrupted, and a node process exits once Run returns anyway.
	go n.readCommands(in)
	return n.loop(ctx)
}

func (n *node) logf(format string, args ...any) {
	if n.o.Log != nil {
		fmt.Fprintf(n.o.Log, format+"\n", args...)
	}
}

func (n *node) countFrame(sent bool, k FrameKind) {
	if sent {
		n.framesSent[k].Add(1)
	} else {
		n.framesRecv[k].Add(1)
	}
}

// post hands an event to the node's goroutine, or drops it once the node
// has stopped.
func (n *node) post(e event) bool {
	select {
	case n.events <- e:
		return true
	case <-n.done:
		return false
	}
}

func (n *node) readCommands(in io.Reader) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var c Command
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			n.post(event{kind: evCmdEnd, err: fmt.Errorf("bad command %q: %w", sc.Text(), err)})
			return
		}
		if !n.post(event{kind: evCmd, cmd: c}) {
			return
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	n.post(event{kind: evCmdEnd, err: err})
}

// loop is the node's goroutine: the only one that touches the machine.
func (n *node) loop(ctx context.Context) error {
	for {
		var e event
		var tick <-chan time.Time
		if n.hbTicker != nil {
			tick = n.hbTicker.C
		}
		select {
		case e = <-n.events:
		case <-tick:
			n.heartbeat()
			n.flushIfIdle()
			continue
		case <-ctx.Done():
			return ctx.Err()
		}
		stop, err := n.handle(e)
		if stop || err != nil {
			if ferr := n.out.Flush(); err == nil && ferr != nil && !stop {
				err = ferr
			}
			return err
		}
		n.flushIfIdle()
	}
}

// flushIfIdle writes buffered report lines once nothing else is waiting:
// under load lines go out in batches, and an idle node's are never late.
func (n *node) flushIfIdle() {
	if len(n.events) == 0 {
		n.out.Flush()
	}
}

func (n *node) handle(e event) (stop bool, err error) {
	switch e.kind {
	case evCmdEnd:
		return false, fmt.Errorf("live: control channel: %w", e.err)
	case evCmd:
		return n.command(e.cmd)
	case evLinkUp:
		l := n.links[e.from]
		if l.conn != nil && l.conn != e.conn {
			l.conn.Close()
		}
		l.conn = e.conn
		l.final = true
		n.checkLinked()
	case evLinkDown:
		// Peers going away at the end of a run is no news; a message that
		// finds the link down is (send logs it).
		if l := n.links[e.from]; l.conn == e.conn {
			l.conn, l.down = nil, e.err
		}
	case evRefused:
		n.refusals.Add(1)
		reason := e.err.Error()
		re, _ := isRefusal(e.err)
		n.logf("handshake with peer %d (%s side): %s", e.from, e.side, reason)
		n.report(Report{Type: "refused", Peer: e.from, Side: e.side, ByPeer: re != nil && re.Remote, Reason: reason})
		if e.side == "dial" {
			l := n.links[e.from]
			l.final, l.refused = true, true
			n.checkLinked()
		}
	case evMsg:
		if !n.started {
			n.early = append(n.early, e)
			return false, nil
		}
		n.deliver(e)
	case evTimer:
		n.fire(e.timer, e.gen)
	}
	return false, nil
}

func (n *node) command(c Command) (bool, error) {
	switch c.Type {
	case "configure":
		if n.cfg.Algorithm != "" {
			return false, errors.New("live: configured twice")
		}
		if c.Config == nil {
			return false, errors.New("live: configure without a config")
		}
		if err := n.configure(*c.Config); err != nil {
			n.report(Report{Type: "error", Error: err.Error()})
			return false, err
		}
	case "start":
		if n.machine == nil || n.started {
			return false, errors.New("live: start before configure, or twice")
		}
		n.begin(c.T0)
	case "initiate":
		if !n.started {
			return false, errors.New("live: initiate before start")
		}
		n.stepBegin("initiate", 0)
		n.machine.Initiate(n)
		n.stepEnd()
	case "suspect":
		if !n.started {
			return false, errors.New("live: suspect before start")
		}
		if c.Peer < 0 || c.Peer >= n.n {
			return false, fmt.Errorf("live: suspect of peer %d out of range", c.Peer)
		}
		n.suspect(c.Peer)
	case "stop":
		st := n.stats()
		n.report(Report{Type: "stats", Stats: &st})
		return true, nil
	default:
		return false, fmt.Errorf("live: unknown command %q", c.Type)
	}
	return false, nil
}

func (n *node) configure(cfg Config) error {
	alg, variant, err := nodes.Lookup(cfg.Algorithm + "/" + cfg.Variant)
	if cfg.Variant == "" {
		alg, variant, err = nodes.Lookup(cfg.Algorithm)
	}
	if err != nil {
		return err
	}
	num := len(cfg.Ranks)
	if num < 2 || cfg.Self < 0 || cfg.Self >= num {
		return fmt.Errorf("live: position %d in a run of %d", cfg.Self, num)
	}
	n.ranks = make([]nodes.Rank, num)
	n.byID = make(map[nodes.ID]int, num)
	for i, s := range cfg.Ranks {
		r, err := nodes.ParseRank(s)
		if err != nil {
			return fmt.Errorf("live: rank of position %d: %w", i, err)
		}
		if _, dup := n.byID[r.ID]; dup {
			return fmt.Errorf("live: identity %s appears twice", r.ID)
		}
		n.ranks[i], n.byID[r.ID] = r, i
	}
	if n.ranks[cfg.Self].ID != n.hs.shown().ID {
		return fmt.Errorf("live: position %d has identity %s, not this node's %s", cfg.Self, n.ranks[cfg.Self].ID, n.hs.shown().ID)
	}
	newMachine, err := alg.New(nodes.Config{Variant: variant, Params: nodes.Params(cfg.Params), N: num, T: cfg.T, D: cfg.D})
	if err != nil {
		return fmt.Errorf("%s: %w", alg.Name, err)
	}
	n.cfg, n.alg, n.n, n.self, n.topo = cfg, alg, num, cfg.Self, alg.Topology
	n.machine = newMachine()
	n.phased, _ = n.machine.(nodes.Phased)
	n.peers = topologyPeers(n.topo, n.ranks, n.self)
	n.rnd = rand.New(rand.NewPCG(cfg.Seed, trial.Mix(uint64(n.self)+1)))
	n.hs.Policy = pow.DefaultPolicy()
	n.hs.Policy.MinBits = cfg.MinBits
	n.links = make([]*link, num)
	for _, l := range cfg.Links {
		if l.To < 0 || l.To >= num || l.To == n.self || n.links[l.To] != nil {
			return fmt.Errorf("live: bad link to position %d", l.To)
		}
		n.links[l.To] = &link{to: l.To, addr: l.Addr}
	}
	n.wg.Add(1)
	go n.acceptLoop()
	for _, l := range n.links {
		if l != nil {
			n.wg.Add(1)
			go n.dialLoop(l.to, l.addr)
		}
	}
	n.checkLinked()
	return nil
}

// checkLinked reports once every outgoing link has been up or refused.
func (n *node) checkLinked() {
	if n.linked {
		return
	}
	up, refused := 0, 0
	for _, l := range n.links {
		switch {
		case l == nil:
		case !l.final:
			return
		case l.refused:
			refused++
		default:
			up++
		}
	}
	n.linked = true
	n.report(Report{Type: "linked", Up: up, Refused: refused})
}

// begin starts the machine at the harness's t0.
func (n *node) begin(t0 int64) {
	n.start = time.Now().Add(-time.Duration(n.mono() - t0))
	n.started = true
	n.stepBegin("start", 0)
	n.machine.Start(n)
	n.stepEnd()
	if d := n.cfg.Detector; d.Kind == "heartbeat" && d.P > 0 {
		n.lastHeard = make([]time.Duration, n.n)
		n.suspected = make([]bool, n.n)
		n.heartbeat() // the first tick is at the start, as in the simulator
		n.hbTicker = time.NewTicker(d.P)
	}
	for _, e := range n.early {
		n.deliver(e)
	}
	n.early = nil
}

// --- the machine's events ---------------------------------------------------

func (n *node) stepBegin(ev string, peer int) {
	n.cur.ev, n.cur.kind, n.cur.timer, n.cur.peer, n.cur.a, n.cur.b = ev, 0, 0, peer, 0, 0
	n.cur.sent = n.cur.sent[:0]
	n.cur.decide = n.cur.decide[:0]
	n.cur.decideAfter = n.cur.decideAfter[:0]
}

func (n *node) stepEnd() {
	n.steps++
	n.cur.armed = n.armed
	n.cur.phase = ""
	if n.phased != nil {
		n.cur.phase = n.phased.Phase()
	}
	n.line = appendStep(n.line[:0], n.Now(), &n.cur)
	n.out.Write(n.line)
}

func (n *node) deliver(e event) {
	k := e.msg.Kind
	n.recv[k]++
	n.bytesRecv += int64(e.size)
	switch k {
	case kindPing:
		n.send(e.from, nodes.Message{Kind: kindPingAck}, false)
		return
	case kindPingAck:
		if n.lastHeard != nil {
			n.lastHeard[e.from] = n.Now()
		}
		return
	}
	n.stepBegin("recv", e.from)
	n.cur.kind, n.cur.a, n.cur.b = k, e.msg.A, e.msg.B
	n.machine.Receive(n, nodes.PeerID(e.from), e.msg)
	n.stepEnd()
}

func (n *node) fire(t nodes.TimerID, gen uint64) {
	tm := n.timers[t]
	if tm == nil || !tm.armed || tm.gen != gen {
		return // cancelled or re-armed since
	}
	tm.armed = false
	n.armed--
	n.fired[t]++
	n.stepBegin("timer", 0)
	n.cur.timer = t
	n.machine.Timeout(n, t)
	n.stepEnd()
}

func (n *node) suspect(p int) {
	n.fired[timerSusp]++
	n.stepBegin("suspect", p)
	n.machine.Suspect(n, nodes.PeerID(p))
	n.stepEnd()
}

// heartbeat is one detector tick, as in the simulator: suspect every peer
// silent for longer than τ, then ping every peer.
func (n *node) heartbeat() {
	now := n.Now()
	for q := range n.n {
		if q == n.self || n.suspected[q] {
			continue
		}
		if now-n.lastHeard[q] > n.cfg.Detector.Tau {
			n.suspected[q] = true
			n.suspect(q)
		}
	}
	for q := range n.n {
		if q != n.self {
			n.send(q, nodes.Message{Kind: kindPing}, false)
		}
	}
	st := n.maintStats()
	n.report(Report{Type: "maint", Stats: &st})
}

// send counts and writes one message; step says whether the machine sent it
// (and the step line lists it) or the runtime did (a detector's ping).
func (n *node) send(to int, m nodes.Message, step bool) {
	if to < 0 || to >= n.n {
		panic(fmt.Sprintf("live: %s sent %s to peer %d, which does not exist", n.alg.Name, m.Kind, to))
	}
	if !m.Kind.Valid() || int(m.Kind) >= len(n.sent) {
		panic(fmt.Sprintf("live: %s sent an unregistered message kind %d", n.alg.Name, m.Kind))
	}
	var size int
	var err error
	n.wbuf, size, err = AppendMessage(n.wbuf[:0], m)
	if err != nil {
		panic(fmt.Sprintf("live: %s: %v", n.alg.Name, err))
	}
	n.sent[m.Kind]++
	n.bytes += int64(size)
	dropped := false
	switch l := n.links[to]; {
	case to == n.self:
		n.deliverLater(m, size)
	case l == nil || l.conn == nil:
		if l != nil && l.final && !l.refused {
			n.logf("link to peer %d is down (%v): %s dropped", to, l.down, m.Kind)
		}
		dropped = true
	default:
		l.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if _, err := l.conn.Write(n.wbuf); err != nil {
			n.logf("writing to peer %d: %v", to, err)
			l.conn.Close() // the dialer sees it and redials
			l.conn = nil
			dropped = true
		} else {
			n.framesSent[FrameMsg].Add(1)
		}
	}
	if dropped {
		n.dropped[m.Kind]++
	}
	if step {
		s := Sent{To: to, Kind: m.Kind, Bytes: size, A: m.A, B: m.B, Dropped: dropped}
		if n.cfg.Trace {
			s.Rank, s.Aux = rankText(m.Rank), rankText(m.Aux)
		}
		n.cur.sent = append(n.cur.sent, s)
	}
}

// rankText is a message's rank on a traced step line: nothing for the zero
// rank, as the trace omits it.
func rankText(r nodes.Rank) string {
	if r.IsZero() {
		return ""
	}
	return r.String()
}

// deliverLater is a message to oneself: it takes the configured latency.
func (n *node) deliverLater(m nodes.Message, size int) {
	time.AfterFunc(n.cfg.SelfLatency, func() {
		n.post(event{kind: evMsg, from: n.self, msg: m, size: size})
	})
}

// --- nodes.Env ---------------------------------------------------------------

func (n *node) Self() nodes.Rank    { return n.ranks[n.self] }
func (n *node) Peers() []nodes.Peer { return n.peers }
func (n *node) Now() time.Duration  { return time.Since(n.start) }
func (n *node) Rand() *rand.Rand    { return n.rnd }
func (n *node) Decide(l nodes.Rank) {
	n.cur.decide = append(n.cur.decide, l.String())
	n.cur.decideAfter = append(n.cur.decideAfter, len(n.cur.sent))
}
func (n *node) Send(to nodes.PeerID, m nodes.Message) { n.send(int(to), m, true) }

func (n *node) After(p nodes.PeerID) (nodes.Peer, bool) {
	if !n.topo.IsRing() || p < 0 || int(p) >= n.n {
		return nodes.Peer{}, false
	}
	j := (int(p) + 1) % n.n
	return nodes.Peer{ID: nodes.PeerID(j), Rank: n.ranks[j]}, true
}

func (n *node) SetTimer(d time.Duration, t nodes.TimerID) {
	if int(t) <= 0 || int(t) >= len(n.fired) {
		panic(fmt.Sprintf("live: %s armed an unregistered timer %d", n.alg.Name, t))
	}
	tm := n.timers[t]
	if tm == nil {
		tm = &timer{}
		n.timers[t] = tm
	}
	if tm.t != nil {
		tm.t.Stop()
	}
	if !tm.armed {
		n.armed++
	}
	tm.gen++
	tm.armed = true
	gen := tm.gen
	tm.t = time.AfterFunc(max(d, 0), func() { n.post(event{kind: evTimer, timer: t, gen: gen}) })
}

func (n *node) CancelTimer(t nodes.TimerID) {
	if tm := n.timers[t]; tm != nil && tm.armed {
		tm.t.Stop()
		tm.gen++
		tm.armed = false
		n.armed--
	}
}

// --- reporting -----------------------------------------------------------------

func (n *node) report(r Report) {
	b, err := json.Marshal(r)
	if err != nil {
		panic(err) // every field is a plain value
	}
	n.out.Write(append(b, '\n'))
}

func byName(counts []int64, name func(int) string) map[string]int64 {
	m := map[string]int64{}
	for i, c := range counts {
		if c != 0 {
			m[name(i)] = c
		}
	}
	return m
}

func kindName(i int) string  { return nodes.Kind(i).String() }
func timerName(i int) string { return nodes.TimerID(i).String() }

func (n *node) stats() Stats {
	st := Stats{
		FramesSent: map[string]int64{}, FramesRecv: map[string]int64{},
		Sent: byName(n.sent, kindName), Recv: byName(n.recv, kindName), Dropped: byName(n.dropped, kindName),
		Bytes: n.bytes, BytesRecv: n.bytesRecv, Fired: byName(n.fired, timerName),
		Refused: n.refusals.Load(), Steps: n.steps,
	}
	for k := FrameKind(1); k < numFrameKinds; k++ {
		if v := n.framesSent[k].Load(); v != 0 {
			st.FramesSent[k.String()] = v
		}
		if v := n.framesRecv[k].Load(); v != 0 {
			st.FramesRecv[k.String()] = v
		}
	}
	return st
}

// maintStats are the counts of the runtime's own kinds (PING, PING_ACK),
// which step lines do not carry.
func (n *node) maintStats() Stats {
	st := Stats{Sent: map[string]int64{}, Recv: map[string]int64{}, Dropped: map[string]int64{}}
	for _, k := range []nodes.Kind{kindPing, kindPingAck} {
		st.Sent[k.String()] = n.sent[k]
		st.Recv[k.String()] = n.recv[k]
		st.Dropped[k.String()] = n.dropped[k]
		size := int64(nodes.Message{Kind: k}.EncodedSize())
		st.Bytes += n.sent[k] * size
	}
	return st
}

// --- the network ---------------------------------------------------------------

func (n *node) dial(ctx context.Context, addr string) (net.Conn, error) {
	if n.o.Dial != nil {
		return n.o.Dial(ctx, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// dialLoop keeps the link to peer `to` up: dial, handshake, then watch the
// connection until it breaks and dial again. A refused handshake ends it:
// identities do not change within a run.
func (n *node) dialLoop(to int, addr string) {
	defer n.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-n.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	want := n.ranks[to].ID
	backoff := 2 * time.Millisecond
	for {
		up, err := n.dialOnce(ctx, to, addr, want)
		if _, ok := isRefusal(err); ok {
			n.post(event{kind: evRefused, from: to, side: "dial", err: err})
			return
		}
		if up {
			backoff = 2 * time.Millisecond
		}
		select {
		case <-n.done:
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// dialOnce dials, shakes hands and, once the link is up, watches it until it
// breaks. up says whether it got that far.
func (n *node) dialOnce(ctx context.Context, to int, addr string, want nodes.ID) (up bool, err error) {
	c, err := n.dial(ctx, addr)
	if err != nil {
		return false, err
	}
	// Closing c is how the node's stop unblocks a handshake or a read.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-cctx.Done()
		c.Close()
	}()
	fr, err := n.hs.Dial(c, want)
	if err != nil {
		return false, err
	}
	if !n.post(event{kind: evLinkUp, from: to, conn: c}) {
		return true, nil
	}
	// Nothing more comes this way on a healthy link: reading only notices
	// the end (the peer died, a proxy was disabled).
	for {
		if _, err = fr.Next(); err != nil {
			break
		}
	}
	n.post(event{kind: evLinkDown, from: to, conn: c, err: err})
	return true, nil
}

func (n *node) acceptLoop() {
	defer n.wg.Done()
	for {
		c, err := n.ln.Accept()
		if err != nil {
			return // closed at shutdown
		}
		n.inMu.Lock()
		select {
		case <-n.done:
			n.inMu.Unlock()
			c.Close()
			return
		default:
		}
		n.in[c] = true
		n.inMu.Unlock()
		n.wg.Add(1)
		go n.serve(c)
	}
}

// serve runs the acceptor's handshake on c, then delivers its frames.
func (n *node) serve(c net.Conn) {
	defer n.wg.Done()
	defer func() {
		c.Close()
		n.inMu.Lock()
		delete(n.in, c)
		n.inMu.Unlock()
	}()
	from, fr, err := n.hs.Accept(c, func(id nodes.ID) (int, bool) {
		p, ok := n.byID[id]
		return p, ok && p != n.self
	})
	if err != nil {
		if re, ok := isRefusal(err); ok {
			if p, known := n.byID[re.Peer]; known && from < 0 {
				from = p // the claimed identity is in the run; it did not prove it
			}
			n.post(event{kind: evRefused, from: from, side: "accept", err: err})
		}
		return
	}
	for {
		f, err := fr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				n.logf("link from peer %d: %v", from, err)
			}
			return
		}
		m, err := f.Message()
		if err != nil {
			n.logf("link from peer %d: %v", from, err)
			return
		}
		if !n.post(event{kind: evMsg, from: from, msg: m, size: len(f.Payload)}) {
			return
		}
	}
}

// shutdown releases everything Run acquired and waits for its goroutines.
func (n *node) shutdown() {
	n.inMu.Lock()
	close(n.done)
	for c := range n.in {
		c.Close()
	}
	n.inMu.Unlock()
	n.ln.Close()
	for _, l := range n.links {
		if l != nil && l.conn != nil {
			l.conn.Close()
		}
	}
	for _, t := range n.timers {
		if t.t != nil {
			t.t.Stop()
		}
	}
	if n.hbTicker != nil {
		n.hbTicker.Stop()
	}
	n.out.Flush()
	n.wg.Wait()
}

// topologyPeers is Env.Peers for position self, as the simulator builds it.
func topologyPeers(topo nodes.Topology, ranks []nodes.Rank, self int) []nodes.Peer {
	n := len(ranks)
	peer := func(j int) nodes.Peer { return nodes.Peer{ID: nodes.PeerID(j), Rank: ranks[j]} }
	switch topo {
	case nodes.RingUni:
		return []nodes.Peer{peer((self + 1) % n)}
	case nodes.RingBi:
		return []nodes.Peer{peer((self + 1) % n), peer((self + n - 1) % n)}
	}
	out := make([]nodes.Peer, n)
	for i := range n {
		out[i] = peer(i)
	}
	slices.SortFunc(out, func(a, b nodes.Peer) int { return a.Rank.Compare(b.Rank) })
	return out
}
