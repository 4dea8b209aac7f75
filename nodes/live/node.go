package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
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
	// StateDir keeps the machine's stable state (nodes.StableStore: etcd-
	// raft's hard state and log) in StableFile across a crash and restart of
	// the process; "" keeps it in memory, where a restart loses it. The
	// harness gives each node of a trial its own fresh directory, the one
	// its identity is kept in, so nothing carries over from trial to trial.
	StateDir string
	// MaxPending bounds the accepted connections still in their handshake;
	// more are closed unread. 0 means DefaultMaxPending.
	MaxPending int
	// MaxEarly bounds the messages one peer may send before start (they
	// wait for it in memory); one more closes its link as a protocol
	// error. 0 means DefaultMaxEarly.
	MaxEarly int
}

// StableFile is the name of the stable state's file in Options.StateDir.
const StableFile = "stable.state"

// Defaults of Options' bounds. A run has at most 127 peers, each with one
// link in: DefaultMaxPending leaves room for every peer to redial at once.
// Before start a peer has no reason to send anything but a message of its
// own early start; DefaultMaxEarly is far beyond what any algorithm's first
// step sends (at most one message per peer and kind).
const (
	DefaultMaxPending = 256
	DefaultMaxEarly   = 1024
)

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
	evProtocol               // a link was closed for breaking the protocol
)

type event struct {
	kind evKind
	from int
	// link is the outgoing link of evLinkUp, evLinkDown and a dial
	// side's evRefused; peer and epoch are an accepted connection's
	// sender and the trial its frames belong to (evMsg from a peer,
	// evProtocol): the node maps peer to a position, which a kept
	// cluster's next trial changes.
	link  *link
	peer  nodes.ID
	epoch uint64
	msg   nodes.Message
	body  []byte // an external program's message body (FrameBody)
	size  int
	timer nodes.TimerID
	gen   uint64
	cmd   Command
	conn  net.Conn
	sess  *Session // evLinkUp: seals what the link sends
	err   error
	side  string
}

type timer struct {
	gen   uint64
	armed bool
	t     *time.Timer
}

// link is one outgoing link. Only the node's goroutine writes to conn. A
// link is known by its address, which leads to the same peer process for
// the node's whole life (a kept cluster's proxy between two processes):
// a later configure gives it the peer's position in that trial.
type link struct {
	to   int
	addr string
	want nodes.ID      // the peer's identity, fixed with addr
	quit chan struct{} // closed when a configure drops the link
	// wake cuts a down link's wait between dials short (the "redial"
	// command: the harness healed a cut or rewired a restarted peer).
	wake    chan struct{}
	conn    net.Conn // nil while down
	sess    *Session // conn's: seals every frame written to it
	final   bool     // up once, or refused: counts towards "linked"
	refused bool
	down    error  // why the link last went down
	epoch   uint64 // the epoch conn's peer was last told (markEpoch)
	drops   int64  // messages dropped since the link last came up (send logs a few)
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
	carrier nodes.BodyCarrier // an external program's machine (nodes/external)
	failed  bool              // the machine failed (nodes.Fallible) and was reported
	n, self int
	ranks   []nodes.Rank
	byID    map[nodes.ID]int
	topo    nodes.Topology
	peers   []nodes.Peer
	links   []*link // by position; nil where no link is configured
	byAddr  map[string]*link
	linked  bool
	// roster is byID for the acceptor's handshakes, which run on their
	// own goroutines: replaced whole by each configure, never written.
	roster atomic.Pointer[map[nodes.ID]int]
	// epoch is the trial the node runs (Config.Epoch); between a reset
	// and the next configure it is noEpoch, and every message is stale.
	// stale counts the messages dropped as another trial's.
	epoch     uint64
	epochNow  atomic.Uint64 // epoch, for the connections' goroutines
	stale     int64
	accepting bool
	rnd       *rand.Rand

	started bool
	// booting is set while the machine's Start runs at the run's start
	// (not a restart's): its Now() reads 0 then, as in the simulator,
	// although the node begins some microseconds after t0. A machine
	// tells a restart by a later Now() (chubby waits out the promises a
	// restarted replica may have forgotten): without this, every live
	// chubby process took its first start for a restart and stood for
	// election only after a lease and its margin.
	booting bool
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
	anonymous, protocol    int64         // the node's goroutine's
	rejected               int64         // frames whose tag did not verify (counted in protocol too)
	shed                   atomic.Int64  // connections closed unread (acceptLoop)
	running                atomic.Bool   // started: serve stops counting early messages
	pending                chan struct{} // a slot per connection in its handshake
	sent, recv, dropped    []int64       // by nodes.Kind
	fired                  []int64       // by nodes.TimerID
	bytes, bytesRecv       int64
	steps                  int64

	cur  step
	wbuf []byte
	line []byte

	stable []byte // the stable state, without a StateDir
	fatal  error  // the node cannot go on (its stable state could not be kept)
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
		byAddr: map[string]*link{},
		sent:   make([]int64, nodes.NumKinds()),
		recv:   make([]int64, nodes.NumKinds()),
		fired:  make([]int64, nodes.NumTimers()),
	}
	n.dropped = make([]int64, nodes.NumKinds())
	if n.mono == nil {
		n.mono = Mono
	}
	n.hs = &Handshaker{Key: o.Identity, Show: o.Show, Timeout: o.HandshakeTimeout, Count: n.countFrame, Gate: NewGate()}
	if n.o.MaxPending <= 0 {
		n.o.MaxPending = DefaultMaxPending
	}
	if n.o.MaxEarly <= 0 {
		n.o.MaxEarly = DefaultMaxEarly
	}
	n.pending = make(chan struct{}, n.o.MaxPending)
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
		if err == nil && n.fatal != nil {
			err = n.fatal
		}
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
		l := e.link
		if l.conn != nil && l.conn != e.conn {
			l.conn.Close()
		}
		l.conn, l.sess, l.epoch, l.drops = e.conn, e.sess, 0, 0
		n.settle(l)
	case evLinkDown:
		// Peers going away at the end of a run is no news; a message that
		// finds the link down is (send logs it).
		if l := e.link; l.conn == e.conn {
			l.conn, l.down = nil, e.err
		}
	case evProtocol:
		n.protocol++
		if errors.Is(e.err, ErrTag) {
			n.rejected++
		}
		from := n.position(e.peer)
		n.logf("link from peer %d closed: %v", from, e.err)
		n.report(Report{Type: "protocol", Peer: from, Reason: e.err.Error()})
	case evRefused:
		n.refusals.Add(1)
		reason := e.err.Error()
		re, _ := isRefusal(e.err)
		if e.from < 0 {
			n.anonymous++
		}
		if e.link != nil {
			e.from = e.link.to
		}
		n.logf("handshake with peer %d (%s side): %s", e.from, e.side, reason)
		n.report(Report{Type: "refused", Peer: e.from, Side: e.side, ByPeer: re != nil && re.Remote, Reason: reason})
		if e.side == "dial" {
			l := e.link
			l.refused = true
			n.settle(l)
		}
	case evMsg:
		if e.epoch != n.epoch {
			n.stale++ // sent in another trial of a kept cluster
			return false, nil
		}
		if e.link == nil && e.peer != (nodes.ID{}) {
			if e.from = n.position(e.peer); e.from < 0 {
				n.stale++
				return false, nil
			}
		}
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
			return false, errors.New("live: configured twice (without a reset between)")
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
		n.begin(c.T0, c.Restart)
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
	case "redial":
		// A cut was healed, or a restarted peer's proxies rewired: dial
		// every link that is down now instead of waiting out its backoff
		// (up to 100 ms), which would stretch the outage past the fault's.
		for _, l := range n.links {
			if l != nil && l.conn == nil && !l.refused {
				select {
				case l.wake <- struct{}{}:
				default:
				}
			}
		}
	case "sync":
		// Every step line before this answer is written before it, and
		// every later one is stamped later: the harness may emit the
		// events up to this time (its watermark).
		var t time.Duration
		if n.started {
			t = n.Now()
		}
		n.report(Report{Type: "synced", T: int64(t)})
	case "stop":
		st := n.stats()
		n.report(Report{Type: "stats", Stats: &st})
		return true, nil
	case "reset":
		if n.cfg.Algorithm == "" {
			return false, errors.New("live: reset before configure")
		}
		st := n.stats()
		n.report(Report{Type: "stats", Stats: &st})
		n.reset()
	default:
		return false, fmt.Errorf("live: unknown command %q", c.Type)
	}
	return false, nil
}

func (n *node) configure(cfg Config) error {
	if cfg.External != nil {
		// A program in any language: this process defines it as the
		// harness did (its kinds are named on the wire and step lines).
		if _, err := nodes.DefineExternal(*cfg.External); err != nil {
			return err
		}
	}
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
	n.carrier, _ = n.machine.(nodes.BodyCarrier)
	n.peers = nodes.PeersOf(n.topo, n.ranks, n.self)
	n.rnd = trial.ProcessRand(cfg.Seed, int(n.self))
	puzzle := n.o.Identity.Params
	puzzle.Bits, puzzle.DynBits = cfg.MinBits, 0
	if cfg.Puzzle != nil {
		if err := cfg.Puzzle.Validate(); err != nil {
			return fmt.Errorf("live: the cluster's puzzle: %w", err)
		}
		puzzle = *cfg.Puzzle
	}
	n.hs.Policy = pow.PolicyFor(puzzle)
	if pr, ok := n.machine.(nodes.Preparer); ok {
		// An external program boots and answers its init now, before the
		// run's clock starts.
		pr.Prepare(n)
		if f, ok := n.machine.(nodes.Fallible); ok && f.Err() != nil {
			return f.Err()
		}
	}
	roster := maps.Clone(n.byID)
	n.roster.Store(&roster)
	n.setEpoch(cfg.Epoch)
	// The links: those of an earlier trial whose address is named again
	// are kept, up or not, with the peer's new position; the others are
	// dropped, and new ones dialled.
	n.links = make([]*link, num)
	keep := map[string]bool{}
	for _, cl := range cfg.Links {
		if cl.To < 0 || cl.To >= num || cl.To == n.self || n.links[cl.To] != nil || keep[cl.Addr] {
			return fmt.Errorf("live: bad link to position %d", cl.To)
		}
		keep[cl.Addr] = true
		l := n.byAddr[cl.Addr]
		switch {
		case l == nil:
			l = &link{to: cl.To, addr: cl.Addr, want: n.ranks[cl.To].ID, quit: make(chan struct{}), wake: make(chan struct{}, 1)}
			n.byAddr[cl.Addr] = l
			n.wg.Add(1)
			go n.dialLoop(l)
		case l.want != n.ranks[cl.To].ID:
			return fmt.Errorf("live: the link at %s leads to %s, not to position %d's %s", cl.Addr, l.want, cl.To, n.ranks[cl.To].ID)
		default:
			// Up now, or to be waited for again: "linked" says every
			// link is up at the start of this trial too.
			l.to, l.final = cl.To, l.conn != nil || l.refused
		}
		n.links[cl.To] = l
	}
	for addr, l := range n.byAddr {
		if !keep[addr] {
			close(l.quit)
			if l.conn != nil {
				l.conn.Close()
			}
			delete(n.byAddr, addr)
		}
	}
	n.linked = false
	if !n.accepting {
		n.accepting = true
		n.wg.Add(1)
		go n.acceptLoop()
	}
	n.checkLinked()
	return nil
}

// noEpoch is the node's epoch between a reset and the next configure: no
// message is any trial's then.
const noEpoch = math.MaxUint64

// markEpoch starts the frames of the next message on link l with an
// EPOCH frame when the link has not said yet that what follows belongs to
// this trial (l.epoch; a connection starts in epoch 0): a message still in
// flight from the last trial is then recognised as stale however late it
// arrives. Said before a link's first message of the trial, in the same
// write, it costs a link that carries none nothing.
func (n *node) markEpoch(l *link) {
	if l.epoch == n.epoch {
		return
	}
	n.wbuf = l.sess.AppendEpoch(n.wbuf, n.epoch)
	l.epoch = n.epoch
	n.framesSent[FrameEpoch].Add(1)
}

func (n *node) setEpoch(e uint64) {
	n.epoch = e
	n.epochNow.Store(e)
}

// position is the position of the peer with identity id in this trial, or
// -1.
func (n *node) position(id nodes.ID) int {
	if p, ok := n.byID[id]; ok && p != n.self {
		return p
	}
	return -1
}

// reset ends the node's trial and keeps the process for the next one of
// its cluster: the machine, its timers and detector, the stable state and
// every count go; the listener, the links and the connections in stay, as
// does the identity. Messages of the ended trial that arrive later are
// stale (epoch).
func (n *node) reset() {
	for _, tm := range n.timers {
		if tm.t != nil {
			tm.t.Stop()
		}
		tm.gen++ // an expiry already queued finds its generation gone
		tm.armed = false
	}
	n.armed = 0
	if n.hbTicker != nil {
		n.hbTicker.Stop()
		n.hbTicker = nil
	}
	if c, ok := n.machine.(io.Closer); ok {
		c.Close() // an external program: stopped and reaped
	}
	n.machine, n.phased, n.carrier, n.alg = nil, nil, nil, nil
	n.cfg = Config{}
	n.setEpoch(noEpoch)
	n.started, n.linked, n.failed = false, false, false
	n.running.Store(false)
	n.early, n.lastHeard, n.suspected = nil, nil, nil
	clear(n.sent)
	clear(n.recv)
	clear(n.dropped)
	clear(n.fired)
	n.bytes, n.bytesRecv, n.steps, n.stale = 0, 0, 0, 0
	n.anonymous, n.protocol, n.rejected = 0, 0, 0
	n.refusals.Store(0)
	n.shed.Store(0)
	for k := range n.framesSent {
		n.framesSent[k].Store(0)
		n.framesRecv[k].Store(0)
	}
	n.stable = nil
	if n.o.StateDir != "" {
		if err := os.Remove(filepath.Join(n.o.StateDir, StableFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			n.fatal = fmt.Errorf("live: removing the last trial's stable state: %w", err)
		}
	}
}

// settle notes that outgoing link l is up or refused. The first time, while
// the node links, it says so ("link"): the harness counts links coming up
// in a cluster's set-up, which takes seconds for thousands of them.
func (n *node) settle(l *link) {
	if !l.final && !n.linked && n.cfg.Algorithm != "" {
		n.report(Report{Type: "link", Peer: l.to})
	}
	l.final = true
	n.checkLinked()
}

// checkLinked reports once every outgoing link has been up or refused.
func (n *node) checkLinked() {
	if n.linked || n.cfg.Algorithm == "" {
		return // said, or between a reset and the next configure
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
func (n *node) begin(t0 int64, restart bool) {
	n.start = time.Now().Add(-time.Duration(n.mono() - t0))
	n.started = true
	n.running.Store(true)
	n.booting = !restart
	n.stepBegin("start", 0)
	n.machine.Start(n)
	n.stepEnd()
	n.booting = false
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
	n.cur.at = n.Now()
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
	n.line = appendStep(n.line[:0], n.cur.at, &n.cur)
	n.out.Write(n.line)
	if f, ok := n.machine.(nodes.Fallible); ok && !n.failed {
		if err := f.Err(); err != nil {
			// An external program misbehaved: the harness fails the trial.
			n.failed = true
			n.report(Report{Type: "error", Error: err.Error()})
		}
	}
}

func (n *node) deliver(e event) {
	k := e.msg.Kind
	if e.body != nil {
		if n.carrier == nil {
			n.logf("peer %d sent an external program's %s to a node that runs none", e.from, k)
			return
		}
		e.msg = n.carrier.Adopt(k, e.body)
	}
	n.grow()
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
	n.grow()
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
	if !m.Kind.Valid() {
		panic(fmt.Sprintf("live: %s sent an unregistered message kind %d", n.alg.Name, m.Kind))
	}
	n.grow()
	size := m.EncodedSize()
	var body []byte
	if m.Kind.IsExternal() {
		// An external program's message: its body, as the program wrote
		// it, travels in a SEALED-BODY frame.
		var ok bool
		if body, ok = n.carrier.Body(m); !ok {
			panic(fmt.Sprintf("live: %s sent a %s whose body it does not hold", n.alg.Name, m.Kind))
		}
		size = len(body)
	}
	n.sent[m.Kind]++
	n.bytes += int64(size)
	dropped := false
	switch l := n.links[to]; {
	case to == n.self:
		n.deliverLater(m, size, body)
	case l == nil || l.conn == nil:
		if l != nil && l.final && !l.refused {
			l.drops++
			if logDrop(l.drops) {
				n.logf("link to peer %d is down (%v): %s dropped (%d since it went down)", to, l.down, m.Kind, l.drops)
			}
		}
		dropped = true
	default:
		var err error
		n.wbuf = n.wbuf[:0]
		n.markEpoch(l)
		if body != nil {
			if n.wbuf, _, err = l.sess.AppendBody(n.wbuf, m.Kind, body); err != nil {
				// Too large for a frame: the program's mistake, reported.
				n.report(Report{Type: "error", Error: err.Error()})
				dropped = true
				if len(n.wbuf) > 0 {
					// The EPOCH frame was sealed in the link's sequence:
					// it must go, or the next frame would not open.
					l.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
					if _, err := l.conn.Write(n.wbuf); err != nil {
						l.conn.Close()
						l.conn = nil
					}
				}
				break
			}
		} else if n.wbuf, _, err = l.sess.AppendMessage(n.wbuf, m); err != nil {
			panic(fmt.Sprintf("live: %s: %v", n.alg.Name, err))
		}
		l.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
		if _, err := l.conn.Write(n.wbuf); err != nil {
			n.logf("writing to peer %d: %v", to, err)
			l.conn.Close() // the dialer sees it and redials
			l.conn = nil
			dropped = true
		} else if body != nil {
			n.framesSent[FrameSealedBody].Add(1)
		} else {
			n.framesSent[FrameSealed].Add(1)
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
func (n *node) deliverLater(m nodes.Message, size int, body []byte) {
	self, epoch := n.self, n.epoch
	time.AfterFunc(n.cfg.SelfLatency, func() {
		n.post(event{kind: evMsg, from: self, epoch: epoch, msg: m, size: size, body: body})
	})
}

// grow makes room in the counters for kinds and timers registered since:
// an external program's are registered as it first uses them.
func (n *node) grow() {
	if k := nodes.NumKinds(); k > len(n.sent) {
		more := k - len(n.sent)
		n.sent = append(n.sent, make([]int64, more)...)
		n.recv = append(n.recv, make([]int64, more)...)
		n.dropped = append(n.dropped, make([]int64, more)...)
	}
	if t := nodes.NumTimers(); t > len(n.fired) {
		n.fired = append(n.fired, make([]int64, t-len(n.fired))...)
	}
}

// --- nodes.Env ---------------------------------------------------------------

func (n *node) Self() nodes.Rank    { return n.ranks[n.self] }
func (n *node) Peers() []nodes.Peer { return n.peers }
func (n *node) Now() time.Duration {
	if n.booting {
		return 0
	}
	return time.Since(n.start)
}
func (n *node) Rand() *rand.Rand { return n.rnd }
func (n *node) Decide(l nodes.Rank) {
	n.cur.decide = append(n.cur.decide, l.String())
	n.cur.decideAfter = append(n.cur.decideAfter, len(n.cur.sent))
}
func (n *node) Send(to nodes.PeerID, m nodes.Message) {
	if n.fatal != nil {
		return // the state this message depends on was not kept: it must not leave, and the node stops
	}
	n.send(int(to), m, true)
}

// LoadStable, SaveStable and AppendStable are nodes.StableStore. With a
// StateDir the bytes are in StableFile: SaveStable replaces it whole by a
// rename, so that a SIGKILL at any instant leaves the old state or the new,
// never a mixture, and AppendStable writes at its end (a SIGKILL during the
// write may keep a prefix of what was appended: the torn tail the contract
// allows). Both write before they return, and so before the machine's next
// send.
// (No fsync: the faults are process crashes, which the page cache survives,
// not power losses.) A failure to keep them stops the node, since a process
// that forgot its vote could elect a second leader in a term.
func (n *node) LoadStable() []byte {
	if n.o.StateDir == "" {
		return n.stable
	}
	b, err := os.ReadFile(filepath.Join(n.o.StateDir, StableFile))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			n.fatal = fmt.Errorf("live: reading the stable state: %w", err)
		}
		return nil
	}
	return b
}

func (n *node) SaveStable(b []byte) {
	if n.o.StateDir == "" {
		n.stable = append(n.stable[:0], b...)
		return
	}
	if n.fatal == nil {
		if err := writeReplace(filepath.Join(n.o.StateDir, StableFile), b); err != nil {
			n.fatal = fmt.Errorf("live: keeping the stable state: %w", err)
		}
	}
}

func (n *node) AppendStable(b []byte) {
	if n.o.StateDir == "" {
		n.stable = append(n.stable, b...)
		return
	}
	if n.fatal == nil {
		if err := writeAppend(filepath.Join(n.o.StateDir, StableFile), b); err != nil {
			n.fatal = fmt.Errorf("live: keeping the stable state: %w", err)
		}
	}
}

// writeAppend writes b at the end of path, creating it if need be.
func writeAppend(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeReplace replaces path's contents with b through a temporary file
// and a rename.
func writeReplace(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".stable-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

func (n *node) After(p nodes.PeerID) (nodes.Peer, bool) {
	if !n.topo.IsRing() || p < 0 || int(p) >= n.n {
		return nodes.Peer{}, false
	}
	j := (int(p) + 1) % n.n
	return nodes.Peer{ID: nodes.PeerID(j), Rank: n.ranks[j]}, true
}

func (n *node) SetTimer(d time.Duration, t nodes.TimerID) {
	if int(t) <= 0 || int(t) >= nodes.NumTimers() {
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
		Refused: n.refusals.Load(), Anonymous: n.anonymous, Shed: n.shed.Load(), ProtocolErrors: n.protocol, Rejected: n.rejected, Steps: n.steps,
		Stale: n.stale,
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
func (n *node) dialLoop(l *link) {
	defer n.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-n.done:
			cancel()
		case <-l.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	backoff := 2 * time.Millisecond
	for {
		up, err := n.dialOnce(ctx, l)
		if _, ok := isRefusal(err); ok {
			n.post(event{kind: evRefused, link: l, side: "dial", err: err})
			return
		}
		if up {
			backoff = 2 * time.Millisecond
		}
		select {
		case <-n.done:
			return
		case <-l.quit:
			return
		case <-l.wake:
			backoff = 2 * time.Millisecond
			continue
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// dialOnce dials, shakes hands and, once the link is up, watches it until it
// breaks. up says whether it got that far.
func (n *node) dialOnce(ctx context.Context, l *link) (up bool, err error) {
	c, err := n.dial(ctx, l.addr)
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
	fr, sess, err := n.hs.Dial(c, l.want)
	if err != nil {
		return false, err
	}
	if !n.post(event{kind: evLinkUp, link: l, conn: c, sess: sess}) {
		return true, nil
	}
	// Nothing more comes this way on a healthy link: reading only notices
	// the end (the peer died, a proxy was disabled).
	for {
		if _, err = fr.Next(); err != nil {
			break
		}
	}
	n.post(event{kind: evLinkDown, link: l, conn: c, err: err})
	return true, nil
}

// acceptLoop accepts peers' connections until shutdown. A failed Accept
// (out of file descriptors after a flood, a connection aborted before it
// was taken) is transient: it is logged and retried after a back-off, so
// the node never stops accepting while it runs. A connection beyond
// MaxPending handshakes is closed unread.
func (n *node) acceptLoop() {
	defer n.wg.Done()
	var backoff time.Duration
	for {
		c, err := n.ln.Accept()
		if err != nil {
			select {
			case <-n.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			n.logf("accepting a connection: %v (retrying in %v)", err, backoff)
			select {
			case <-n.done:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		select {
		case n.pending <- struct{}{}:
		default:
			if k := n.shed.Add(1); k&(k-1) == 0 { // log the 1st, 2nd, 4th, 8th, ...
				n.logf("%d connections in their handshake already: closing a new one unread (%d so far)", n.o.MaxPending, k)
			}
			c.Close()
			continue
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
	var peer nodes.ID
	from, fr, sess, err := n.hs.Accept(c, func(id nodes.ID) (int, bool) {
		p, ok := (*n.roster.Load())[id]
		peer = id
		return p, ok && p != n.self
	})
	<-n.pending
	if err != nil {
		// from is -1: the connection proved no identity, so its refusal
		// is anonymous whatever id it claimed.
		if _, ok := isRefusal(err); ok {
			n.post(event{kind: evRefused, from: from, side: "accept", err: err})
		}
		return
	}
	// The frames belong to epoch 0 until the peer says otherwise (an
	// EPOCH frame, in a kept cluster's later trials).
	var epoch uint64
	early := 0
	for {
		f, err := fr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				n.logf("link from peer %s: %v", peer, err)
			}
			return
		}
		var ev event
		switch f.Kind {
		case FrameEpoch:
			if epoch, err = sess.OpenEpoch(f); err != nil {
				n.post(event{kind: evProtocol, peer: peer, err: err})
				return
			}
			early = 0
			continue
		case FrameSealedBody:
			k, body, err := sess.OpenBody(f)
			if err != nil {
				n.post(event{kind: evProtocol, peer: peer, err: err})
				return
			}
			// The body aliases the reader's buffer: keep a copy.
			body = append([]byte(nil), body...)
			ev = event{kind: evMsg, peer: peer, epoch: epoch, msg: nodes.Message{Kind: k, B: int64(len(body))}, size: len(body), body: body}
		default:
			m, err := sess.Open(f)
			if err != nil {
				n.post(event{kind: evProtocol, peer: peer, err: err})
				return
			}
			ev = event{kind: evMsg, peer: peer, epoch: epoch, msg: m, size: len(f.Payload)}
		}
		if !n.running.Load() && epoch == n.epochNow.Load() {
			// Held in memory until start: a peer may not grow that
			// without bound. (Another trial's messages are dropped.)
			if early++; early > n.o.MaxEarly {
				n.post(event{kind: evProtocol, peer: peer, err: fmt.Errorf("more than %d messages before start", n.o.MaxEarly)})
				return
			}
		}
		if !n.post(ev) {
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
	for _, l := range n.byAddr {
		if l.conn != nil {
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
	if c, ok := n.machine.(io.Closer); ok {
		c.Close() // an external program: stopped and reaped
	}
	n.out.Flush()
	n.wg.Wait()
}

// logDrop says whether the k-th message dropped on a link that is down is
// logged: the first, the tenth, the hundredth... (the count says how many
// went), so that a storm into a stopped peer (multicast at N = 128 sent
// tens of thousands) writes a few lines, not one a message. Every drop is
// counted (Stats, the dropped column) whatever is logged.
func logDrop(k int64) bool {
	for k >= 10 && k%10 == 0 {
		k /= 10
	}
	return k == 1
}
