package live

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

var (
	timerA = nodes.RegisterTimer("LIVE_TEST_A", nodes.ElectionClass)
	timerB = nodes.RegisterTimer("LIVE_TEST_B", nodes.ElectionClass)
)

// timerMachine arms A at 10 ms and B at 20 ms; when A fires it re-arms B for
// 15 ms later (replacing the pending expiry) and decides itself.
type timerMachine struct{}

func (timerMachine) Start(env nodes.Env) {
	env.SetTimer(10*time.Millisecond, timerA)
	env.SetTimer(20*time.Millisecond, timerB)
}
func (timerMachine) Initiate(env nodes.Env)                         { env.CancelTimer(timerB) }
func (timerMachine) Receive(nodes.Env, nodes.PeerID, nodes.Message) {}
func (timerMachine) Suspect(nodes.Env, nodes.PeerID)                {}
func (timerMachine) Timeout(env nodes.Env, t nodes.TimerID) {
	if t == timerA {
		env.SetTimer(15*time.Millisecond, timerB)
		env.Decide(env.Self())
	}
}

// echoMachine: on Initiate it sends LIVE_TEST_ELECTION(self) to every other
// process; whoever receives one decides the sender.
type echoMachine struct{}

func (echoMachine) Start(nodes.Env) {}
func (echoMachine) Initiate(env nodes.Env) {
	for _, p := range env.Peers() {
		if p.Rank != env.Self() {
			env.Send(p.ID, nodes.Message{Kind: testElection, Rank: env.Self()})
		}
	}
}
func (echoMachine) Receive(env nodes.Env, _ nodes.PeerID, m nodes.Message) { env.Decide(m.Rank) }
func (echoMachine) Suspect(nodes.Env, nodes.PeerID)                        {}
func (echoMachine) Timeout(nodes.Env, nodes.TimerID)                       {}

func init() {
	for name, m := range map[string]nodes.Machine{"live-test-timers": timerMachine{}, "live-test-echo": echoMachine{}} {
		nodes.Register(nodes.Algorithm{Name: name, Family: "test", Topology: nodes.Complete,
			New: func(nodes.Config) (func() nodes.Machine, error) { return func() nodes.Machine { return m }, nil }})
	}
}

// memNet is an in-memory network: listeners by address, connections from
// net.Pipe, so a node's goroutines block durably and synctest's clock runs.
type memNet struct {
	mu    sync.Mutex
	ln    map[string]*memListener
	conns map[string][]net.Conn // the dialers' ends, by address dialled
}

// cut closes every connection dialled to addr so far.
func (m *memNet) cut(addr string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.conns[addr] {
		c.Close()
	}
	m.conns[addr] = nil
}

type memListener struct {
	addr  string
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

type memAddr string

func (a memAddr) Network() string { return "mem" }
func (a memAddr) String() string  { return string(a) }

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}
func (l *memListener) Close() error   { l.once.Do(func() { close(l.done) }); return nil }
func (l *memListener) Addr() net.Addr { return memAddr(l.addr) }

func (m *memNet) listen(addr string) *memListener {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := &memListener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
	m.ln[addr] = l
	return l
}

func (m *memNet) dial(ctx context.Context, addr string) (net.Conn, error) {
	m.mu.Lock()
	l := m.ln[addr]
	m.mu.Unlock()
	a, b := net.Pipe()
	select {
	case l.conns <- b:
		m.mu.Lock()
		if m.conns == nil {
			m.conns = map[string][]net.Conn{}
		}
		m.conns[addr] = append(m.conns[addr], a)
		m.mu.Unlock()
		return a, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// testNode drives one node through its control channel.
type testNode struct {
	t       *testing.T
	key     *pow.Key
	in      *io.PipeWriter
	reports chan Report
	done    chan error
}

func fakeMono() int64 { return time.Now().UnixNano() } // synctest's clock

func startNode(t *testing.T, net *memNet, addr string) *testNode {
	t.Helper()
	n := runNode(t, Options{Identity: mint(t), Listener: net.listen(addr), Dial: net.dial, Mono: fakeMono})
	if r := n.next("hello"); r.Addr != addr || CheckRegistry(r.Kinds, r.Timers) != nil || len(r.Kinds) != len(KindNames()) {
		t.Fatalf("hello %+v from %q: want %q and this binary's registry", r, r.Addr, addr)
	}
	return n
}

// runNode runs a node with options o; its hello is the first report.
func runNode(t *testing.T, o Options) *testNode {
	t.Helper()
	return runNodeWith(t, o.Identity, func(in io.Reader, out io.Writer) error {
		return Run(context.Background(), o, in, out)
	})
}

// runNodeWith runs a node of identity key with run, which reads commands
// from in and writes reports to out.
func runNodeWith(t *testing.T, key *pow.Key, run func(in io.Reader, out io.Writer) error) *testNode {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	n := &testNode{t: t, key: key, in: inW, reports: make(chan Report, 1024), done: make(chan error, 1)}
	go func() {
		n.done <- run(inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var r Report
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("unreadable report %q: %v", sc.Text(), err)
			}
			n.reports <- r
		}
		close(n.reports)
	}()
	return n
}

func (n *testNode) cmd(c Command) {
	b, _ := json.Marshal(c)
	if _, err := n.in.Write(append(b, '\n')); err != nil {
		n.t.Fatal(err)
	}
}

// next returns the next report, which must be of type typ.
func (n *testNode) next(typ string) Report {
	n.t.Helper()
	r, ok := <-n.reports
	if !ok || r.Type != typ {
		n.t.Fatalf("got report %+v (open %v), want %s", r, ok, typ)
	}
	return r
}

// stop asks for the final stats and waits for the node to end.
func (n *testNode) stop() *Stats {
	n.t.Helper()
	n.cmd(Command{Type: "stop"})
	var st *Stats
	for r := range n.reports {
		if r.Type == "stats" {
			st = r.Stats
		}
	}
	if err := <-n.done; err != nil {
		n.t.Fatalf("node ended with %v", err)
	}
	n.in.Close() // as the harness does: the node's command reader ends
	return st
}

func configFor(alg string, self int, keys []*pow.Key) *Config {
	cfg := &Config{Algorithm: alg, T: time.Millisecond, Seed: 1, Self: self, MinBits: testBits}
	for _, k := range keys {
		cfg.Ranks = append(cfg.Ranks, k.Rank().String())
	}
	return cfg
}

// Timers are real timers on the node's clock: they fire after their delay,
// re-arming replaces the pending expiry, and every step reports the time
// and the timers left armed.
func TestNodeTimers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := &memNet{ln: map[string]*memListener{}}
		n := startNode(t, net, "a")
		other := mint(t)
		n.cmd(Command{Type: "configure", Config: configFor("live-test-timers", 0, []*pow.Key{n.key, other})})
		if r := n.next("linked"); r.Up != 0 || r.Refused != 0 {
			t.Fatalf("linked %+v with no links", r)
		}
		n.cmd(Command{Type: "start", T0: fakeMono()})
		if r := n.next("step"); r.Ev != "start" || r.T != 0 || r.Armed != 2 {
			t.Fatalf("start step %+v", r)
		}
		time.Sleep(30 * time.Millisecond)
		if r := n.next("step"); r.Ev != "timer" || r.Timer != timerA || r.T != int64(10*time.Millisecond) || r.Armed != 1 ||
			len(r.Decide) != 1 || r.Decide[0] != n.key.Rank().String() {
			t.Fatalf("timer A step %+v", r)
		}
		// B was armed for 20 ms, then re-armed at 10 ms for 15 ms more.
		if r := n.next("step"); r.Ev != "timer" || r.Timer != timerB || r.T != int64(25*time.Millisecond) || r.Armed != 0 {
			t.Fatalf("timer B step %+v", r)
		}
		st := n.stop()
		if st.Fired["LIVE_TEST_A"] != 1 || st.Fired["LIVE_TEST_B"] != 1 || st.Steps != 3 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// A cancelled timer never fires.
func TestNodeCancelTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := &memNet{ln: map[string]*memListener{}}
		n := startNode(t, net, "a")
		n.cmd(Command{Type: "configure", Config: configFor("live-test-timers", 0, []*pow.Key{n.key, mint(t)})})
		n.next("linked")
		n.cmd(Command{Type: "start", T0: fakeMono()})
		n.next("step")
		n.cmd(Command{Type: "initiate"}) // cancels B
		if r := n.next("step"); r.Ev != "initiate" || r.Armed != 1 {
			t.Fatalf("initiate step %+v", r)
		}
		time.Sleep(time.Second)
		if r := n.next("step"); r.Timer != timerA {
			t.Fatalf("step %+v", r)
		}
		// A re-armed B at 10 ms: it fires at 25 ms, once.
		if r := n.next("step"); r.Timer != timerB || r.T != int64(25*time.Millisecond) {
			t.Fatalf("step %+v", r)
		}
		if st := n.stop(); st.Fired["LIVE_TEST_B"] != 1 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// Two nodes on an in-memory network: the handshake links them, a message
// crosses and is counted on both sides with the simulator's byte count, and
// the heartbeat detector (real PING and PING_ACK frames) suspects a peer
// that has stopped answering once it has been silent for longer than τ.
func TestNodesHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := &memNet{ln: map[string]*memListener{}}
		a, b := startNode(t, net, "a"), startNode(t, net, "b")
		keys := []*pow.Key{a.key, b.key}
		det := Detector{Kind: "heartbeat", P: 10 * time.Millisecond, Tau: 30 * time.Millisecond}
		ca, cb := configFor("live-test-echo", 0, keys), configFor("live-test-echo", 1, keys)
		ca.Links, cb.Links = []Link{{To: 1, Addr: "b"}}, []Link{{To: 0, Addr: "a"}}
		ca.Detector, cb.Detector = det, det
		ca.Trace = true // a's step lines carry its messages' ranks
		a.cmd(Command{Type: "configure", Config: ca})
		b.cmd(Command{Type: "configure", Config: cb})
		for i, n := range []*testNode{a, b} {
			// Each link is told as it comes up, then all of them.
			if r := n.next("link"); r.Peer != 1-i {
				t.Fatalf("link %+v", r)
			}
			if r := n.next("linked"); r.Up != 1 {
				t.Fatalf("linked %+v", r)
			}
		}
		t0 := fakeMono()
		a.cmd(Command{Type: "start", T0: t0})
		b.cmd(Command{Type: "start", T0: t0})
		a.next("step")
		b.next("step")
		a.next("maint") // the first heartbeat tick is at the start
		b.next("maint")
		a.cmd(Command{Type: "initiate"})
		size := nodes.Message{Kind: testElection, Rank: a.key.Rank()}.EncodedSize()
		if r := a.next("step"); r.Ev != "initiate" || len(r.Sent) != 1 || r.Sent[0].To != 1 || r.Sent[0].Bytes != size || r.Sent[0].Dropped ||
			r.Sent[0].Kind != testElection || r.Sent[0].Rank != a.key.Rank().String() || r.Sent[0].Aux != "" {
			t.Fatalf("initiate step %+v", r)
		}
		if r := b.next("step"); r.Ev != "recv" || r.From != 0 || r.Kind != testElection || len(r.Decide) != 1 || r.Decide[0] != a.key.Rank().String() {
			t.Fatalf("recv step %+v", r)
		}
		time.Sleep(55 * time.Millisecond)
		stopped := time.Duration(fakeMono() - t0)
		stB := b.stop()
		var suspicion Report
		for suspicion.Type == "" {
			r := <-a.reports
			switch r.Type {
			case "maint":
			case "step":
				suspicion = r
			default:
				t.Fatalf("report %+v", r)
			}
		}
		at := time.Duration(suspicion.T)
		if suspicion.Ev != "suspect" || suspicion.Peer != 1 || at <= stopped+det.Tau-det.P || at > stopped+det.Tau+det.P {
			t.Fatalf("suspicion %+v; b stopped at %v, τ = %v, P = %v", suspicion, stopped, det.Tau, det.P)
		}
		stA := a.stop()
		if stA.Sent["LIVE_TEST_ELECTION"] != 1 || stB.Recv["LIVE_TEST_ELECTION"] != 1 || stA.Bytes < int64(size) ||
			stA.Sent["PING"] == 0 || stA.Recv["PING_ACK"] == 0 || stB.Recv["PING"] == 0 || stA.Fired["SUSPECT"] != 1 {
			t.Fatalf("stats: a %+v, b %+v", stA, stB)
		}
		// a dialed b and accepted b's dial: a HELLO and a PROOF each way
		// on both links, a WELCOME each way on one.
		if stA.FramesSent["HELLO"] != 2 || stA.FramesSent["PROOF"] != 2 || stA.FramesSent["WELCOME"] != 1 || stA.FramesRecv["WELCOME"] != 1 ||
			stA.FramesSent["SEALED"] != stA.Sent["LIVE_TEST_ELECTION"]+stA.Sent["PING"]+stA.Sent["PING_ACK"]-stA.Dropped["PING"]-stA.Dropped["PING_ACK"] {
			t.Fatalf("frames of a: sent %v, received %v", stA.FramesSent, stA.FramesRecv)
		}
	})
}

// A node whose registry numbers kinds or timers otherwise than the
// harness's is refused, naming the first difference: its step lines would
// otherwise be miscounted.
func TestCheckRegistry(t *testing.T) {
	kinds, timers := KindNames(), TimerNames()
	if err := CheckRegistry(kinds, timers); err != nil {
		t.Fatal(err)
	}
	swapped := slices.Clone(kinds)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	for _, tc := range []struct {
		kinds, timers []string
		want          string
	}{
		{swapped, timers, "message kind 1 is " + strconv.Quote(kinds[1])},
		{kinds[:len(kinds)-1], timers, fmt.Sprintf("message kind %d is not registered", len(kinds))},
		{kinds, append(slices.Clone(timers), "OTHER"), fmt.Sprintf("timer %d is \"OTHER\", this harness's is not registered", len(timers)+1)},
	} {
		err := CheckRegistry(tc.kinds, tc.timers)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "this very binary") {
			t.Errorf("%v; want %q", err, tc.want)
		}
	}
}

// A node's stable state (nodes.StableStore) survives the process: a second
// node on the same directory, as a restart respawns it, loads what the
// first saved; a fresh directory has none; without a directory it is kept
// in memory only; and a directory it cannot write stops the node.
func TestNodeStableState(t *testing.T) {
	dir := t.TempDir()
	var _ nodes.StableStore = (*env)(nil)
	first := &env{store: &stable{dir: dir}}
	if b := first.LoadStable(); b != nil || first.store.err != nil {
		t.Fatalf("a fresh directory has state %x (%v)", b, first.store.err)
	}
	first.SaveStable([]byte("term 3, vote 2"))
	first.SaveStable([]byte("term 4, vote 1"))
	first.AppendStable([]byte("; term 5"))
	first.AppendStable([]byte(", vote 3"))
	again := &env{store: &stable{dir: dir}}
	if b := again.LoadStable(); string(b) != "term 4, vote 1; term 5, vote 3" || again.store.err != nil {
		t.Fatalf("after a restart: %q (%v)", b, again.store.err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != StableFile {
		t.Fatalf("the directory holds %v, want only %s", ents, StableFile)
	}
	mem := &env{store: &stable{}}
	mem.SaveStable([]byte("x"))
	mem.AppendStable([]byte("y"))
	if string(mem.LoadStable()) != "xy" {
		t.Fatal("without a directory the state is not kept in memory")
	}
	bad := &env{store: &stable{dir: filepath.Join(dir, "missing")}}
	bad.SaveStable([]byte("x"))
	if bad.store.err == nil || !strings.Contains(bad.store.err.Error(), "keeping the stable state") {
		t.Fatalf("an unwritable directory: %v", bad.store.err)
	}
	bad = &env{store: &stable{dir: filepath.Join(dir, "missing")}}
	bad.AppendStable([]byte("x"))
	if bad.store.err == nil || !strings.Contains(bad.store.err.Error(), "keeping the stable state") {
		t.Fatalf("an unwritable directory, appending: %v", bad.store.err)
	}
}

// A reset ends a node's trial and keeps its process and links for the
// next configure, whatever positions it gives: the next trial links with
// no handshake, a peer's message is delivered from its new position, and
// a message sent in the last trial that arrives in the next one is stale,
// never delivered.
func TestNodeResetKeepsLinks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := &memNet{ln: map[string]*memListener{}}
		a, b := startNode(t, net, "a"), startNode(t, net, "b")
		// Trial 1: a at position 0, b at 1.
		ca, cb := configFor("live-test-echo", 0, []*pow.Key{a.key, b.key}), configFor("live-test-echo", 1, []*pow.Key{a.key, b.key})
		ca.Links, cb.Links = []Link{{To: 1, Addr: "b"}}, []Link{{To: 0, Addr: "a"}}
		a.cmd(Command{Type: "configure", Config: ca})
		b.cmd(Command{Type: "configure", Config: cb})
		for _, n := range []*testNode{a, b} {
			n.next("link")
			n.next("linked")
		}
		t0 := fakeMono()
		a.cmd(Command{Type: "start", T0: t0})
		b.cmd(Command{Type: "start", T0: t0})
		a.next("step")
		b.next("step")

		// b moves to trial 2 (epoch 2, positions swapped) while a is
		// still in trial 1: what a sends now is stale at b.
		b.cmd(Command{Type: "reset"})
		if st := b.next("stats").Stats; st.FramesSent["HELLO"] != 2 || st.Steps != 1 {
			t.Fatalf("b's stats of trial 1: %+v", st)
		}
		// b's link to a breaks and comes back between its trials (a
		// proxy put back by the harness's reset): b says nothing of it
		// until configured, and then that it is linked.
		net.cut("a")
		time.Sleep(50 * time.Millisecond)
		select {
		case r := <-b.reports:
			t.Fatalf("b reported %+v between its trials", r)
		default:
		}
		c2a, c2b := configFor("live-test-echo", 1, []*pow.Key{b.key, a.key}), configFor("live-test-echo", 0, []*pow.Key{b.key, a.key})
		c2a.Links, c2b.Links = []Link{{To: 0, Addr: "b"}}, []Link{{To: 1, Addr: "a"}}
		c2a.Epoch, c2b.Epoch = 2, 2
		b.cmd(Command{Type: "configure", Config: c2b})
		if r := b.next("linked"); r.Up != 1 {
			t.Fatalf("b's kept link: linked %+v", r)
		}
		a.cmd(Command{Type: "initiate"})
		if r := a.next("step"); len(r.Sent) != 1 || r.Sent[0].Dropped {
			t.Fatalf("a's last message of trial 1: %+v", r)
		}
		time.Sleep(time.Millisecond)
		a.cmd(Command{Type: "reset"})
		if st := a.next("stats").Stats; st.Sent["LIVE_TEST_ELECTION"] != 1 {
			t.Fatalf("a's stats of trial 1: %+v", st)
		}
		a.cmd(Command{Type: "configure", Config: c2a})
		if r := a.next("linked"); r.Up != 1 {
			t.Fatalf("a's kept link: linked %+v", r)
		}

		// Trial 2: b at 0, a at 1.
		t0 = fakeMono()
		a.cmd(Command{Type: "start", T0: t0})
		b.cmd(Command{Type: "start", T0: t0})
		a.next("step")
		if r := b.next("step"); r.Ev != "start" {
			t.Fatalf("b's first step of trial 2 is %+v: the stale message was delivered", r)
		}
		a.cmd(Command{Type: "initiate"})
		if r := a.next("step"); len(r.Sent) != 1 || r.Sent[0].To != 0 || r.Sent[0].Dropped {
			t.Fatalf("a's initiate in trial 2: %+v", r)
		}
		if r := b.next("step"); r.Ev != "recv" || r.From != 1 || len(r.Decide) != 1 || r.Decide[0] != a.key.Rank().String() {
			t.Fatalf("b's receive in trial 2: %+v", r)
		}
		stB := b.stop()
		// The EPOCH frame goes before a link's first message of a trial:
		// a sent one, b none. b shook hands once more, on its redial.
		if stB.Stale != 1 || stB.Recv["LIVE_TEST_ELECTION"] != 1 || stB.FramesSent["HELLO"] != 1 || stB.FramesRecv["EPOCH"] != 1 || stB.FramesSent["EPOCH"] != 0 {
			t.Fatalf("b's stats of trial 2: %+v", stB)
		}
		if stA := a.stop(); stA.Sent["LIVE_TEST_ELECTION"] != 1 || stA.FramesSent["HELLO"] != 0 || stA.Stale != 0 || stA.FramesSent["EPOCH"] != 1 {
			t.Fatalf("a's stats of trial 2: %+v", stA)
		}
	})
}

// A link that is down logs its first dropped message, then the 10th, the
// 100th, the 1,000th...: a few lines for a storm, each with the count.
func TestLogDrop(t *testing.T) {
	var logged []int64
	for k := int64(1); k <= 2000; k++ {
		if logDrop(k) {
			logged = append(logged, k)
		}
	}
	want := []int64{1, 10, 100, 1000}
	if !slices.Equal(logged, want) {
		t.Fatalf("logged drops %v, want %v", logged, want)
	}
}
