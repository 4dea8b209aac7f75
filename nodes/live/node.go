package live

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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

// event kinds funnelled into the node's goroutine.
type evKind uint8

const (
	evMsg      evKind = iota // a message from a peer (or from itself)
	evTimer                  // a machine timer expired
	evCmd                    // a command from the harness
	evCmdEnd                 // the control channel closed or failed
	evLink                   // an outgoing link came up or broke (apply)
	evRefused                // a handshake refused an identity
	evProtocol               // a link was closed for breaking the protocol
	evServe                  // a slow node's held step has had its service (faults)
)

type event struct {
	kind evKind
	from int
	// peer and epoch are an accepted connection's sender and the trial
	// its frames belong to (evMsg from a peer, evProtocol): the node maps
	// peer to a position, which a kept cluster's next trial changes.
	peer  nodes.ID
	epoch uint64
	msg   nodes.Message
	body  []byte // an external program's message body (FrameBody)
	size  int
	timer nodes.TimerID
	gen   uint64
	cmd   Command
	// apply is the transport's change to one of its links out (evLink,
	// and evRefused on the dial side), run on the node's goroutine, which
	// alone writes links: to is the link's position (-1: nothing to
	// settle), first whether it settles for the first time in the trial.
	apply func() (to int, first bool)
	err   error
	side  string
}

// node is one running process: the goroutine that owns the machine (loop)
// and obeys the harness's commands, over its parts — the transport to its
// peers, the env its machine sees, its timers, detector, stable storage,
// counters and report writer. Only the node's goroutine touches a field;
// the transport documents what its own goroutines share.
type node struct {
	o      Options
	id     *pow.Identity // shown to peers (the hello's, and its position's in a configure)
	eph    *ephemeral    // the transport's ephemeral key, certified, for the hello; nil in memory
	rep    *reporter
	events chan event
	done   chan struct{} // closed when the node stops: posts return false
	net    transport

	cfg     Config
	machine nodes.Machine
	phased  nodes.Phased
	failed  bool // the machine failed (nodes.Fallible) and was reported
	env     *env // the trial's; nil before the first configure
	det     *detector
	timers  *timers
	store   *stable
	count   *counters
	linked  bool
	started bool
	early   []event // messages that arrived before start
	faults  *faults // the harness's loss and slow faults in force here
}

// Run runs one node: it listens, says hello on out, then obeys the commands
// read from in until stop, the end of in, or ctx. It returns nil after a
// stop and an error otherwise; every goroutine it started has ended when it
// returns.
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	if o.Identity == nil {
		return errors.New("live: no identity")
	}
	n := newNode(o, out)
	t, err := newNetTransport(n.o, n.post, n.done, n.logf)
	if err != nil {
		return err
	}
	// The ephemeral key is made and certified now, not at the first
	// handshake: the hello shows it to the harness, which checks the
	// certificate once and vouches for it to every peer.
	if n.eph, err = t.hs.ephemeral(); err != nil {
		t.ln.Close()
		return fmt.Errorf("live: the ephemeral key: %w", err)
	}
	return n.run(ctx, t, in)
}

// newNode is a node of options o (defaults filled in) writing its lines
// to out, not running yet.
func newNode(o Options, out io.Writer) *node {
	if o.Mono == nil {
		o.Mono = Mono
	}
	if o.MaxPending <= 0 {
		o.MaxPending = DefaultMaxPending
	}
	if o.MaxEarly <= 0 {
		o.MaxEarly = DefaultMaxEarly
	}
	n := &node{
		o:      o,
		id:     o.Show,
		rep:    newReporter(out),
		events: make(chan event, 4096),
		done:   make(chan struct{}),
		store:  &stable{dir: o.StateDir},
		count:  newCounters(),
	}
	if n.id == nil {
		n.id = &o.Identity.Identity
	}
	n.timers = &timers{m: map[nodes.TimerID]*timer{}, post: n.post}
	n.faults = &faults{post: n.post}
	return n
}

// run says hello over transport t and runs the node until it stops.
func (n *node) run(ctx context.Context, t transport, in io.Reader) error {
	n.net = t
	defer n.shutdown()
	file, err := pow.Encode(n.id)
	if err != nil {
		return fmt.Errorf("live: encoding the identity: %w", err)
	}
	hello := Report{Type: "hello", Addr: t.addr(), Identity: string(file), PID: os.Getpid(),
		Proof: ProveToHarness(n.o.Identity, n.id.ID, n.o.Challenge), Kinds: KindNames(), Timers: TimerNames(), Control: ControlVersion}
	if n.eph != nil {
		hello.Eph, hello.Cert = n.eph.pub, n.eph.cert
	}
	n.rep.report(hello)
	if err := n.rep.flush(); err != nil {
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
		select {
		case e = <-n.events:
		case <-n.det.tick():
			n.heartbeat()
			n.flushIfIdle()
			continue
		case <-n.libraryKick():
			n.libraryStep()
			n.flushIfIdle()
			continue
		case <-ctx.Done():
			return ctx.Err()
		}
		stop, err := n.handle(e)
		if err == nil && n.store.failed() != nil {
			err = n.store.failed() // the node cannot go on: its stable state could not be kept
		}
		if stop || err != nil {
			if ferr := n.rep.flush(); err == nil && ferr != nil && !stop {
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
		n.rep.flush()
	}
}

func (n *node) handle(e event) (stop bool, err error) {
	switch e.kind {
	case evCmdEnd:
		return false, fmt.Errorf("live: control channel: %w", e.err)
	case evCmd:
		return n.command(e.cmd)
	case evLink:
		if to, first := e.apply(); to >= 0 {
			n.settle(to, first)
		}
	case evProtocol:
		n.count.protocol++
		if errors.Is(e.err, ErrTag) {
			n.count.rejected++
		}
		from := n.net.position(e.peer)
		n.logf("link from peer %d closed: %v", from, e.err)
		n.rep.report(Report{Type: "protocol", Peer: from, Reason: e.err.Error()})
	case evRefused:
		n.refused(e)
	case evMsg:
		if e.epoch != n.net.epoch() {
			n.count.stale++ // sent in another trial of a kept cluster
			return false, nil
		}
		if e.peer != (nodes.ID{}) {
			if e.from = n.net.position(e.peer); e.from < 0 {
				n.count.stale++
				return false, nil
			}
		}
		if !n.started {
			n.early = append(n.early, e)
			return false, nil
		}
		if e.msg.Kind != kindPing && e.msg.Kind != kindPingAck && n.faults.hold(e) {
			return false, nil // a slow node: its detector still answers at once
		}
		n.deliver(e)
	case evTimer:
		if !n.faults.hold(e) {
			n.fire(e.timer, e.gen)
		}
	case evServe:
		if h, ok := n.faults.next(e.gen); ok {
			n.step(h)
		}
	}
	return false, nil
}

// step handles a machine's step that a slow fault held: a delivery, a
// timer, an initiation or a suspicion.
func (n *node) step(e event) {
	switch {
	case e.kind == evMsg:
		n.deliver(e)
	case e.kind == evTimer:
		n.fire(e.timer, e.gen)
	case e.cmd.Type == "initiate":
		n.initiate()
	case e.cmd.Type == "suspect":
		n.suspect(e.cmd.Peer)
	}
}

// refused counts and reports a handshake that refused an identity; a link
// out that was refused settles.
func (n *node) refused(e event) {
	n.count.refused++
	reason := e.err.Error()
	re, _ := isRefusal(e.err)
	if e.from < 0 {
		n.count.anonymous++
	}
	to, first := -1, false
	if e.apply != nil {
		to, first = e.apply()
		e.from = to
	}
	n.logf("handshake with peer %d (%s side): %s", e.from, e.side, reason)
	n.rep.report(Report{Type: "refused", Peer: e.from, Side: e.side, ByPeer: re != nil && re.Remote, Path: re != nil && re.Path, Reason: reason})
	if e.side == "dial" {
		n.settle(to, first)
	}
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
			n.rep.report(Report{Type: "error", Error: err.Error()})
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
		if !n.faults.hold(event{kind: evCmd, cmd: c}) {
			n.initiate()
		}
	case "suspect":
		if !n.started {
			return false, errors.New("live: suspect before start")
		}
		if c.Peer < 0 || c.Peer >= len(n.env.ranks) {
			return false, fmt.Errorf("live: suspect of peer %d out of range", c.Peer)
		}
		n.suspectStep(c.Peer)
	case "lose":
		return false, n.faults.lose(c)
	case "slow":
		return false, n.faults.slowDown(c)
	case "heal":
		n.faults.heal(c.Fault)
	case "redial":
		// A cut was healed, or a restarted peer's proxies rewired: dial
		// every link that is down now instead of waiting out its backoff
		// (up to 100 ms), which would stretch the outage past the fault's.
		n.net.redial()
	case "sync":
		// Every step line before this answer is written before it, and
		// every later one is stamped later: the harness may emit the
		// events up to this time (its watermark).
		var t time.Duration
		switch {
		case n.started:
			t = n.env.Now()
		case c.T0 != 0:
			// Before the start, a sync that names t0 is the harness
			// estimating this host's clock offset (harness/clock.go).
			t = time.Duration(n.o.Mono() - c.T0)
		}
		n.rep.report(Report{Type: "synced", T: int64(t)})
	case "stop":
		st := n.count.stats(n.net.counts())
		n.rep.report(Report{Type: "stats", Stats: &st})
		return true, nil
	case "reset":
		if n.cfg.Algorithm == "" {
			return false, errors.New("live: reset before configure")
		}
		st := n.count.stats(n.net.counts())
		n.rep.report(Report{Type: "stats", Stats: &st})
		n.reset()
	default:
		return false, fmt.Errorf("live: unknown command %q", c.Type)
	}
	return false, nil
}

// parseRanks reads the ranks of a configure and indexes them by identity.
func parseRanks(cfg Config) ([]nodes.Rank, map[nodes.ID]int, error) {
	num := len(cfg.Ranks)
	if num < 2 || cfg.Self < 0 || cfg.Self >= num {
		return nil, nil, fmt.Errorf("live: position %d in a run of %d", cfg.Self, num)
	}
	ranks := make([]nodes.Rank, num)
	byID := make(map[nodes.ID]int, num)
	for i, s := range cfg.Ranks {
		r, err := nodes.ParseRank(s)
		if err != nil {
			return nil, nil, fmt.Errorf("live: rank of position %d: %w", i, err)
		}
		if _, dup := byID[r.ID]; dup {
			return nil, nil, fmt.Errorf("live: identity %s appears twice", r.ID)
		}
		ranks[i], byID[r.ID] = r, i
	}
	return ranks, byID, nil
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
	ranks, byID, err := parseRanks(cfg)
	if err != nil {
		return err
	}
	if ranks[cfg.Self].ID != n.id.ID {
		return fmt.Errorf("live: position %d has identity %s, not this node's %s", cfg.Self, ranks[cfg.Self].ID, n.id.ID)
	}
	newMachine, err := alg.New(nodes.Config{Variant: variant, Params: nodes.Params(cfg.Params), N: len(ranks), T: cfg.T, D: cfg.D})
	if err != nil {
		return fmt.Errorf("%s: %w", alg.Name, err)
	}
	n.cfg = cfg
	n.machine = newMachine()
	n.phased, _ = n.machine.(nodes.Phased)
	n.env = &env{
		ranks: ranks, self: cfg.Self, peers: nodes.PeersOf(alg.Topology, ranks, cfg.Self), topo: alg.Topology, name: alg.Name,
		rnd:         trial.ProcessRand(cfg.Seed, cfg.Self),
		selfLatency: cfg.SelfLatency, trace: cfg.Trace,
		timers: n.timers, store: n.store, count: n.count, net: n.net, rep: n.rep, post: n.post, faults: n.faults,
	}
	n.env.carrier, _ = n.machine.(nodes.BodyCarrier)
	n.env.host = newHost(n.env, n.store, n.o.Log)
	puzzle := n.o.Identity.Params
	puzzle.Bits, puzzle.DynBits = cfg.MinBits, 0
	if cfg.Puzzle != nil {
		if err := cfg.Puzzle.Validate(); err != nil {
			return fmt.Errorf("live: the cluster's puzzle: %w", err)
		}
		puzzle = *cfg.Puzzle
	}
	if pr, ok := n.machine.(nodes.Preparer); ok {
		// An external program boots and answers its init now, before the
		// run's clock starts.
		pr.Prepare(n.env)
		if f, ok := n.machine.(nodes.Fallible); ok && f.Err() != nil {
			return f.Err()
		}
	}
	r := &roster{ranks: ranks, byID: byID, self: cfg.Self, epoch: cfg.Epoch, policy: pow.PolicyFor(puzzle), vouched: cfg.Vouched, vouchedCerts: cfg.VouchedCerts}
	if err := n.net.configure(r, cfg.Links); err != nil {
		return err
	}
	n.linked = false
	n.checkLinked()
	return nil
}

// reset ends the node's trial and keeps the process for the next one of
// its cluster: the machine, its timers and detector, the stable state and
// every count go; the listener, the links and the connections in stay, as
// does the identity. Messages of the ended trial that arrive later are
// stale (epoch).
func (n *node) reset() {
	n.timers.disarm()
	n.det.stop()
	n.det = nil
	if c, ok := n.machine.(io.Closer); ok {
		c.Close() // an external program stopped and reaped, a library's goroutines ended
	}
	n.env.host.close()
	n.machine, n.phased, n.env = nil, nil, nil
	n.cfg = Config{}
	n.net.reset()
	n.started, n.linked, n.failed = false, false, false
	n.early = nil
	n.faults.reset()
	n.count.reset()
	n.store.reset()
}

// settle notes that the link out to position to is up or refused, for the
// first time in the trial if first. The first time, while the node links,
// it says so ("link"): the harness counts links coming up in a cluster's
// set-up, which takes seconds for thousands of them.
func (n *node) settle(to int, first bool) {
	if first && !n.linked && n.cfg.Algorithm != "" {
		n.rep.report(Report{Type: "link", Peer: to})
	}
	n.checkLinked()
}

// checkLinked reports once every outgoing link has been up or refused.
func (n *node) checkLinked() {
	if n.linked || n.cfg.Algorithm == "" {
		return // said, or between a reset and the next configure
	}
	all, up, refused := n.net.settled()
	if !all {
		return
	}
	n.linked = true
	n.rep.report(Report{Type: "linked", Up: up, Refused: refused})
}

// shutdown releases everything Run acquired and waits for its goroutines.
func (n *node) shutdown() {
	close(n.done)
	n.timers.stop()
	n.det.stop()
	if c, ok := n.machine.(io.Closer); ok {
		c.Close() // an external program: stopped and reaped
	}
	n.rep.flush()
	n.net.close()
}
