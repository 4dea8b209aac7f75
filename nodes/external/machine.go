package external

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/electbench/electbench/nodes"
)

// trialState is what the nodes of one trial share: the spec, the trial's
// configuration and the bodies of the messages in flight. A message is a
// nodes.Message of an external kind whose A is the handle of its body here
// and B the body's size (what it is charged); the runtime carries the
// value, the receiving node reads the body back. The simulator runs a
// trial's nodes in one goroutine, and a live node process holds one node,
// so it needs no lock.
type trialState struct {
	spec   Spec
	key    string // spec.poolKey(): the kept programs it may take
	cfg    nodes.Config
	bodies [][]byte // by handle-1
	// procs are the programs of the trial, spawned or kept from another;
	// once every machine is closed those it keeps are kept for the next
	// trial, the others stopped together, so that their exits overlap.
	procs    []*process
	machines int // machines made
	closed   int // machines closed
	// seeds are the init seeds given, by node: a restarted node gets the
	// same init (NODE-PROTOCOL.md, "Crashes, restarts").
	seeds map[nodes.PeerID]uint64
}

// newMachines is the algorithm's constructor: one call per trial (per node
// process, live), one machine per node.
func (s Spec) newMachines(cfg nodes.Config) (func() nodes.Machine, error) {
	ts := &trialState{spec: s, key: s.poolKey(), cfg: cfg}
	return func() nodes.Machine { return ts.newNode() }, nil
}

// seed is node p's init seed: drawn from its own random source the first
// time, the same for its restarts.
func (ts *trialState) seed(env nodes.Env, p nodes.PeerID) uint64 {
	if s, ok := ts.seeds[p]; ok {
		return s
	}
	if ts.seeds == nil {
		ts.seeds = map[nodes.PeerID]uint64{}
	}
	s := env.Rand().Uint64() >> 11 // below 2^53: exact in every JSON reader
	ts.seeds[p] = s
	return s
}

// body returns the body of message m, sent by a node of this trial.
func (ts *trialState) body(m nodes.Message) ([]byte, bool) {
	if m.A < 1 || m.A > int64(len(ts.bodies)) {
		return nil, false
	}
	return ts.bodies[m.A-1], true
}

// node is the nodes.Machine of one node program. Each event is one step:
// the adapter writes the event's line, then reads and applies the node's
// lines until "done". It never reads a clock but for the step's budget
// (budget.go), which only decides whether the node failed.
type node struct {
	ts   *trialState
	proc *process
	err  error // the first failure; then every event is ignored

	name   string
	step   int64  // steps so far, init included
	event  string // the step in progress, for errors
	self   nodes.Rank
	byName map[string]nodes.Peer // every node this one may name, itself included
	names  map[nodes.PeerID]string
	dests  map[string]nodes.PeerID // those it may send to
	maint  map[string]bool         // maintenance types
	kinds  map[string]nodes.Kind   // types seen, by name
	timers map[string]nodes.TimerID
	inited bool
	reused bool // its program was kept from another trial
	// The step's output so far, against MaxStepLines and MaxStepBytes.
	stepLines int
	stepBytes int
}

// MaxStepLines bounds the lines (messages, actions and notes together) a
// node writes in one step, and MaxStepBytes their bytes: the adapter holds
// a step's messages until the step ends, so without a bound a program
// could fill the harness's memory within one step timeout. A node that
// broadcasts several times in a step stays far below either
// (NODE-PROTOCOL.md, "Mistakes"); stepLinesPerNode raises the line bound
// for clusters so large that a few broadcasts would reach it.
const (
	MaxStepLines     = 1 << 16
	MaxStepBytes     = 64 << 20
	stepLinesPerNode = 4
)

// errFlood is a step whose output went past MaxStepLines or MaxStepBytes.
var errFlood = errors.New("flooded its step")

// counted adds a line the node wrote to its step's output, and fails once
// the output is past its bound.
func (n *node) counted(raw []byte) error {
	n.stepLines++
	n.stepBytes += len(raw) + 1
	most := max(MaxStepLines, stepLinesPerNode*n.ts.cfg.N)
	if n.stepLines > most {
		return fmt.Errorf("%w: more than %d lines in one step", errFlood, most)
	}
	if n.stepBytes > MaxStepBytes {
		return fmt.Errorf("%w: more than %d bytes in one step", errFlood, MaxStepBytes)
	}
	return nil
}

// newNode takes a program kept from another trial, or spawns one at once,
// so that a trial's programs boot side by side; it reads nothing until
// the node's first event.
func (ts *trialState) newNode() *node {
	n := &node{ts: ts, kinds: map[string]nodes.Kind{}, timers: map[string]nodes.TimerID{}}
	ts.machines++
	if p := takeIdle(ts.key); p != nil {
		n.proc, n.reused = p, true
		p.keep = false
		ts.procs = append(ts.procs, p)
		return n
	}
	n.spawn()
	return n
}

// spawn starts the node's program.
func (n *node) spawn() {
	ts := n.ts
	p, err := spawn(ts.spec.Command, ts.spec.Dir, ts.spec.timeout())
	if err != nil {
		n.err = fmt.Errorf("node program: %w", err)
		return
	}
	n.proc, n.reused = p, false
	ts.procs = append(ts.procs, p)
}

func (s Spec) timeout() time.Duration {
	if s.StepTimeout > 0 {
		return s.StepTimeout
	}
	return DefaultStepTimeout
}

// Err reports the node's first failure (nodes.Fallible).
func (n *node) Err() error { return n.err }

// Close stops the program (io.Closer): its standard input is closed and
// it is killed if it has not exited within a second. A program that
// declared reuse and is between steps, with nothing written since its
// last "done", is kept instead, for a later trial (pool.go). The runtime
// closes every machine it made exactly once; when the last of a trial's is
// closed, the programs it keeps are kept, and Close waits until every
// other program of the trial is reaped.
func (n *node) Close() error {
	ts := n.ts
	if p := n.proc; p != nil {
		if n.err == nil && p.reuse && p.r.Buffered() == 0 {
			p.keep = true
		} else {
			p.closeInput()
		}
	}
	ts.closed++
	if ts.closed == ts.machines {
		deadline := time.Now().Add(stopGrace)
		for _, p := range ts.procs {
			if p.keep {
				keepIdle(ts.key, p)
			} else {
				p.stop(deadline)
			}
		}
		ts.procs = nil
	}
	return nil
}

// Prepare runs the init step (nodes.Preparer): a live node calls it before
// the run's clock starts, so that the program's start-up is not election
// time.
func (n *node) Prepare(env nodes.Env) {
	if n.err != nil || n.inited {
		return
	}
	err := n.init(env)
	if errors.Is(err, errStale) {
		// The kept program ended while it waited (killed, or it exited):
		// it is stopped with the trial's, and the node starts afresh.
		n.proc.closeInput()
		n.step = 0
		if n.spawn(); n.err != nil {
			return
		}
		err = n.init(env)
	}
	if err != nil {
		n.fail(err)
	}
}

// errStale is a kept program found ended by its next trial's init.
var errStale = errors.New("the kept program has ended")

func (n *node) Start(env nodes.Env) {
	n.Prepare(env)
	if n.err != nil {
		return
	}
	n.run(env, "start", []byte(`{"src":"eb","dest":"`+n.name+`","body":{"type":"start"}}`))
}

func (n *node) Initiate(env nodes.Env) {
	if n.ready() {
		n.run(env, "elect", []byte(`{"src":"eb","dest":"`+n.name+`","body":{"type":"elect"}}`))
	}
}

func (n *node) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	if !n.ready() {
		return
	}
	body, ok := n.ts.body(m)
	if !ok || !m.Kind.IsExternal() {
		n.fail(fmt.Errorf("received %s from %s, which is not a message of this trial", m.Kind, n.nameOf(from)))
		return
	}
	src := n.nameOf(from)
	line := make([]byte, 0, len(body)+len(src)+len(n.name)+32)
	line = append(line, `{"src":"`...)
	line = append(line, src...)
	line = append(line, `","dest":"`...)
	line = append(line, n.name...)
	line = append(line, `","body":`...)
	line = append(line, body...)
	line = append(line, '}')
	n.run(env, "receive "+m.Kind.String()+" from "+src, line)
}

func (n *node) Timeout(env nodes.Env, t nodes.TimerID) {
	if n.ready() {
		n.run(env, "timeout "+t.String(), []byte(`{"src":"eb","dest":"`+n.name+`","body":{"type":"timeout","timer":`+strconv.Quote(t.String())+`}}`))
	}
}

func (n *node) Suspect(env nodes.Env, p nodes.PeerID) {
	if n.ready() {
		q := n.nameOf(p)
		n.run(env, "suspect "+q, []byte(`{"src":"eb","dest":"`+n.name+`","body":{"type":"suspect","node":"`+q+`"}}`))
	}
}

func (n *node) ready() bool { return n.err == nil && n.inited }

// nameOf is the protocol's name of a process: n{position}. Both runtimes
// number peers by position (nodes.PeerID).
func (n *node) nameOf(p nodes.PeerID) string {
	if s, ok := n.names[p]; ok {
		return s
	}
	return "n" + strconv.Itoa(int(p))
}

// fail records the node's first failure and stops its program, naming the
// node and the step.
func (n *node) fail(err error) {
	if n.err != nil {
		return
	}
	where := n.name
	if where == "" {
		where = "node"
	}
	n.err = fmt.Errorf("%s %s: step %d (%s): %w", n.ts.spec.Name, where, n.step, n.event, err)
	if n.proc != nil {
		n.proc.closeInput() // reaped when the trial's machines are closed
	}
}

// lineErr describes an offending line, cut to 200 bytes.
func lineErr(what error, line []byte) error {
	return fmt.Errorf("%w: line %q", what, cut(string(line), 200))
}

// topology walks what env shows of the cluster: every process with its
// PeerID, in ring order from this one's successor on a ring, in ascending
// rank order on a complete graph; and this process's own PeerID.
func topology(env nodes.Env, topo nodes.Topology) (all []nodes.Peer, self nodes.PeerID, err error) {
	me := env.Self()
	peers := env.Peers()
	if topo == nodes.Complete {
		for _, p := range peers {
			if p.Rank == me {
				self = p.ID
			}
		}
		return peers, self, nil
	}
	if len(peers) == 0 {
		return nil, 0, errors.New("a ring node without a successor")
	}
	p := peers[0]
	for range 1 << 30 {
		all = append(all, p)
		if p.Rank == me {
			return all, p.ID, nil
		}
		next, ok := env.After(p.ID)
		if !ok {
			return nil, 0, fmt.Errorf("the ring ends after process %d", p.ID)
		}
		p = next
	}
	return nil, 0, errors.New("the ring does not come back to this process")
}

// protoRanks gives the integer ranks the protocol shows: the identities
// themselves when every one is a number below 2^53 with no election
// attribute (exact in every JSON reader), otherwise each process's place in
// ascending rank order from 1, which orders them the same
// (NODE-PROTOCOL.md, "init").
func protoRanks(all []nodes.Peer) map[nodes.PeerID]int64 {
	out := make(map[nodes.PeerID]int64, len(all))
	small := true
	for _, p := range all {
		v, ok := p.Rank.ID.Small()
		if !ok || p.Rank.Attr != 0 || v >= 1<<53 {
			small = false
			break
		}
		out[p.ID] = int64(v)
	}
	if small {
		return out
	}
	sorted := slices.Clone(all)
	slices.SortFunc(sorted, func(a, b nodes.Peer) int { return a.Rank.Compare(b.Rank) })
	for i, p := range sorted {
		out[p.ID] = int64(i + 1)
	}
	return out
}

type initPeer struct {
	Node string `json:"node"`
	Rank int64  `json:"rank"`
	ID   string `json:"id"`
}

type initBody struct {
	Type     string            `json:"type"`
	MsgID    int               `json:"msg_id"`
	NodeID   string            `json:"node_id"`
	NodeIDs  []string          `json:"node_ids"`
	Rank     int64             `json:"rank"`
	ID       string            `json:"id"`
	Topology string            `json:"topology"`
	Peers    []initPeer        `json:"peers"`
	Ring     []string          `json:"ring,omitempty"`
	TMs      float64           `json:"t_ms"`
	Params   map[string]string `json:"params"`
	Seed     uint64            `json:"seed"`
}

// init sends the init line and reads up to init_ok.
func (n *node) init(env nodes.Env) error {
	topo := n.ts.spec.Topology
	all, selfID, err := topology(env, topo)
	if err != nil {
		return err
	}
	n.self = env.Self()
	n.name = "n" + strconv.Itoa(int(selfID))
	n.proc.stderr.name(n.ts.spec.Name + " " + n.name + ": ")
	n.event = "init"
	n.byName = make(map[string]nodes.Peer, len(all))
	n.names = make(map[nodes.PeerID]string, len(all))
	n.dests = make(map[string]nodes.PeerID, len(all))
	for _, p := range all {
		s := "n" + strconv.Itoa(int(p.ID))
		n.byName[s] = p
		n.names[p.ID] = s
		if p.ID != selfID {
			// Every node the init line names: peers, and on a ring the
			// whole ring, so that a node can close it over a suspect.
			n.dests[s] = p.ID
		}
	}
	ranks := protoRanks(all)
	nn := n.ts.cfg.N
	b := initBody{
		Type: "init", MsgID: 1, NodeID: n.name, NodeIDs: make([]string, nn),
		Rank: ranks[selfID], ID: n.self.ID.String(), Topology: topo.String(),
		Peers: []initPeer{}, TMs: float64(n.ts.cfg.T) / float64(time.Millisecond),
		Params: n.ts.cfg.Params, Seed: n.ts.seed(env, selfID),
	}
	if b.Params == nil {
		b.Params = map[string]string{}
	}
	for i := range nn {
		b.NodeIDs[i] = "n" + strconv.Itoa(i)
	}
	for _, p := range env.Peers() {
		if p.ID != selfID {
			b.Peers = append(b.Peers, initPeer{Node: n.names[p.ID], Rank: ranks[p.ID], ID: p.Rank.ID.String()})
		}
	}
	if topo.IsRing() {
		for _, p := range all {
			if p.ID != selfID {
				b.Ring = append(b.Ring, n.names[p.ID])
			}
		}
	}
	line, err := marshalLine(Eb, n.name, b)
	if err != nil {
		return err
	}
	n.maint = map[string]bool{}
	for _, m := range n.ts.spec.Maintenance {
		n.maint[m] = true
	}
	n.step++
	n.stepLines, n.stepBytes = 0, 0
	if err := n.proc.send(line); err != nil {
		if n.reused && !errors.Is(err, errTimeout) {
			return errStale
		}
		return n.writeErr(err)
	}
	n.proc.startBudget(true)
	for {
		raw, err := n.proc.readLine()
		if err != nil {
			if n.reused && n.stepLines == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
				return errStale
			}
			return n.readErr(raw, err)
		}
		if err := n.counted(raw); err != nil {
			return err
		}
		o, err := parseOutput(raw, n.name)
		if err != nil {
			return lineErr(err, raw)
		}
		switch o.op {
		case opLog:
			continue
		case opInitOK:
			if o.inReplyTo != nil && *o.inReplyTo != 1 {
				return lineErr(errors.New("init_ok answers msg_id 1, not another"), raw)
			}
			for _, m := range o.maintenance {
				n.maint[m] = true
			}
			n.proc.reuse = o.reuse
			n.inited = true
			return nil
		default:
			return lineErr(errors.New("the first line of a node must be init_ok (or log)"), raw)
		}
	}
}

// run is one step: the event's line in, the node's lines out until done.
func (n *node) run(env nodes.Env, event string, in []byte) {
	n.step++
	n.event = event
	n.stepLines, n.stepBytes = 0, 0
	if err := n.proc.send(in); err != nil {
		n.fail(n.writeErr(err))
		return
	}
	n.proc.startBudget(false)
	for {
		raw, err := n.proc.readLine()
		if err != nil {
			n.fail(n.readErr(raw, err))
			return
		}
		if err := n.counted(raw); err != nil {
			n.fail(err)
			return
		}
		o, err := parseOutput(raw, n.name)
		if err != nil {
			n.fail(lineErr(err, raw))
			return
		}
		if o.op == opDone {
			return
		}
		if err := n.apply(env, &o); err != nil {
			n.fail(lineErr(err, raw))
			return
		}
	}
}

// apply carries out one line of a step.
func (n *node) apply(env nodes.Env, o *output) error {
	switch o.op {
	case opMessage:
		to, ok := n.dests[o.dest]
		if !ok {
			return fmt.Errorf("%q is neither eb nor a peer", cut(o.dest, 40))
		}
		k, ok := n.kinds[o.typ]
		if !ok {
			class := nodes.ElectionClass
			if n.maint[o.typ] {
				class = nodes.MaintenanceClass
			}
			var err error
			if k, err = nodes.ExternalKind(o.typ, class); err != nil {
				return err
			}
			n.kinds[o.typ] = k
		}
		ts := n.ts
		ts.bodies = append(ts.bodies, o.body)
		env.Send(to, nodes.Message{Kind: k, A: int64(len(ts.bodies)), B: int64(len(o.body))})
	case opSetTimer, opCancelTimer:
		t, ok := n.timers[o.timer]
		if !ok {
			var err error
			if t, err = nodes.ExternalTimer(o.timer); err != nil {
				return err
			}
			n.timers[o.timer] = t
		}
		if o.op == opCancelTimer {
			env.CancelTimer(t)
			return nil
		}
		env.SetTimer(time.Duration(math.Round(o.ms*float64(time.Millisecond))), t)
	case opLeader:
		p, ok := n.byName[o.leader]
		if !ok {
			return fmt.Errorf("leader %q is not a node this one knows", cut(o.leader, 40))
		}
		env.Decide(p.Rank)
	case opLog:
		if nt, ok := env.(nodes.Noter); ok {
			nt.Note(o.text)
		}
	case opInitOK:
		return errors.New("init_ok outside the init step")
	}
	return nil
}

// readErr describes a failed read: a timeout, a long line, or the program
// ending (its exit status and the tail of its standard error).
func (n *node) readErr(partial []byte, err error) error {
	switch {
	case errors.Is(err, errStartup), errors.Is(err, nodes.ErrInfrastructure):
		return err
	case errors.Is(err, errTimeout):
		return fmt.Errorf("did not end its step within the step timeout (%v)%s", n.ts.spec.timeout(), n.proc.budget.spent())
	case errors.Is(err, errLong):
		return lineErr(fmt.Errorf("a line longer than %d bytes", MaxLine), partial)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("output ended mid-line %q: the program %s", cut(string(partial), 200), n.proc.exitStatus())
	case errors.Is(err, io.EOF):
		return fmt.Errorf("output ended before the step did: the program %s", n.proc.exitStatus())
	}
	return fmt.Errorf("reading its output: %w", err)
}

// writeErr describes a failed write of an input line.
func (n *node) writeErr(err error) error {
	if errors.Is(err, errTimeout) {
		return fmt.Errorf("did not read its input within the step timeout (%v)", n.ts.spec.timeout())
	}
	return fmt.Errorf("could not be sent its input: the program %s", n.proc.exitStatus())
}

// marshalLine encodes one protocol line.
func marshalLine(src, dest string, body any) ([]byte, error) {
	return jsonMarshal(struct {
		Src  string `json:"src"`
		Dest string `json:"dest"`
		Body any    `json:"body"`
	}{src, dest, body})
}

// Body returns the body of a message a node of this trial sent
// (nodes.BodyCarrier): a live node puts it on the wire.
func (n *node) Body(m nodes.Message) ([]byte, bool) { return n.ts.body(m) }

// Adopt keeps a body received from the wire and returns the message that
// refers to it (nodes.BodyCarrier).
func (n *node) Adopt(k nodes.Kind, body []byte) nodes.Message {
	ts := n.ts
	ts.bodies = append(ts.bodies, body)
	return nodes.Message{Kind: k, A: int64(len(ts.bodies)), B: int64(len(body))}
}
