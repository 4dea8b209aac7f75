package nodetest_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
	"github.com/electbench/electbench/nodes/trial"
)

// The network is tested with a scripted machine: each test says what the
// processes do, and checks what the network made of it.

var (
	kindPing = nodes.RegisterKind("NODETEST_PING", nodes.ElectionClass)
	kindBeat = nodes.RegisterKind("NODETEST_BEAT", nodes.MaintenanceClass)
	tick     = nodes.RegisterTimer("NODETEST_TICK", nodes.ElectionClass)
	tock     = nodes.RegisterTimer("NODETEST_TOCK", nodes.ElectionClass)
)

const T = nodetest.DefaultT

func ping(r uint64) nodes.Message { return nodes.Message{Kind: kindPing, Rank: nodes.RankOf(r)} }

// script says what every process does; a nil hook does nothing.
type script struct {
	start    func(*machine, nodes.Env)
	initiate func(*machine, nodes.Env)
	receive  func(*machine, nodes.Env, nodes.PeerID, nodes.Message)
	timeout  func(*machine, nodes.Env, nodes.TimerID)
	phased   bool // the machines implement nodes.Phased
}

// machine runs a script. handled counts the events this instance handled,
// so a test can tell a restarted machine from the one before.
type machine struct {
	s       *script
	handled int
	phase   string
}

func (m *machine) Start(e nodes.Env) {
	m.handled++
	if m.s.start != nil {
		m.s.start(m, e)
	}
}

func (m *machine) Initiate(e nodes.Env) {
	m.handled++
	if m.s.initiate != nil {
		m.s.initiate(m, e)
	}
}

func (m *machine) Receive(e nodes.Env, from nodes.PeerID, msg nodes.Message) {
	m.handled++
	if m.s.receive != nil {
		m.s.receive(m, e, from, msg)
	}
}

func (m *machine) Timeout(e nodes.Env, t nodes.TimerID) {
	m.handled++
	if m.s.timeout != nil {
		m.s.timeout(m, e, t)
	}
}

func (m *machine) Suspect(nodes.Env, nodes.PeerID) { m.handled++ }

type phasedMachine struct{ *machine }

func (m phasedMachine) Phase() string { return m.phase }

func scriptAlg(topo nodes.Topology, s script) *nodes.Algorithm {
	return &nodes.Algorithm{Name: "script", Family: "test", Topology: topo,
		Variants: []nodes.Variant{{Name: "default"}},
		New: func(nodes.Config) (func() nodes.Machine, error) {
			return func() nodes.Machine {
				m := &machine{s: &s, phase: nodes.PhaseNormal}
				if s.phased {
					return phasedMachine{m}
				}
				return m
			}, nil
		}}
}

func scripted(t *testing.T, topo nodes.Topology, s script, ids ...uint64) *nodetest.Net {
	return nodetest.New(t, nodetest.Config{Algorithm: scriptAlg(topo, s), Ranks: nodetest.Ranks(ids...)})
}

// lines returns the transcript without its header.
func lines(n *nodetest.Net) []string {
	ls := strings.Split(strings.TrimSpace(n.Transcript()), "\n")
	return ls[1:]
}

func expectLines(t *testing.T, n *nodetest.Net, want ...string) {
	t.Helper()
	if got := lines(n); !slices.Equal(got, want) {
		t.Fatalf("transcript\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// ALGORITHMS.md, "The reference model": every message takes exactly T; at
// one instant deliveries come before timer expirations, so a timer of
// exactly a round trip does not fire ahead of the answer; deliveries are
// ordered by send. Actions scheduled with At come before both.
func TestOrderingRule(t *testing.T) {
	n := scripted(t, nodes.Complete, script{
		start: func(m *machine, e nodes.Env) {
			if e.Self() == nodes.RankOf(1) {
				e.SetTimer(2*T, tick) // armed before anything is sent
				e.Send(1, ping(1))
				e.Send(2, ping(1))
			}
		},
		receive: func(m *machine, e nodes.Env, from nodes.PeerID, msg nodes.Message) {
			if msg.Rank == nodes.RankOf(1) {
				e.Send(from, ping(uint64(e.Self().ID[3]))) // the answer arrives at 2T
			}
		},
	}, 1, 2, 3)
	var observed []trial.Event
	n.Observe(func(e trial.Event) {
		observed = append(observed, e)
		if e.Kind == trial.EvRecv && e.Q == 1 && n.Machine(1).(*machine).handled != 1 {
			t.Errorf("%v observed after process 1 handled it", e)
		}
	})
	n.Start()
	n.At(2*T, func() { n.Suspect(2, 0) })
	n.Stabilize(10 * T)
	if !slices.Equal(observed, n.Events()) {
		t.Fatalf("observed %v, want every event: %v", observed, n.Events())
	}
	expectLines(t, n,
		"t=0T start p=0",
		"t=0T send 0->1 NODETEST_PING(r=1)",
		"t=0T send 0->2 NODETEST_PING(r=1)",
		"t=0T start p=1",
		"t=0T start p=2",
		"t=1T recv 0->1 NODETEST_PING(r=1)",
		"t=1T send 1->0 NODETEST_PING(r=2)",
		"t=1T recv 0->2 NODETEST_PING(r=1)",
		"t=1T send 2->0 NODETEST_PING(r=3)",
		"t=2T suspect p=2 q=0",
		"t=2T recv 1->0 NODETEST_PING(r=2)",
		"t=2T recv 2->0 NODETEST_PING(r=3)",
		"t=2T timer p=0 NODETEST_TICK",
	)
	if n.LastElection() != 2*T || n.Now() != 2*T {
		t.Fatalf("last election message at %v, clock %v; want both 2T", n.LastElection(), n.Now())
	}
}

func TestTopologies(t *testing.T) {
	ids := []uint64{30, 10, 20}
	peers := func(n *nodetest.Net, p int) []nodes.PeerID {
		var got []nodes.PeerID
		env := envOf(t, n, p)
		for _, q := range env.Peers() {
			if q.Rank != n.Rank(int(q.ID)) {
				t.Fatalf("peer %d carries rank %v, want %v", q.ID, q.Rank, n.Rank(int(q.ID)))
			}
			got = append(got, q.ID)
		}
		return got
	}
	for _, c := range []struct {
		topo  nodes.Topology
		want  [][]nodes.PeerID
		after bool
	}{
		{nodes.RingUni, [][]nodes.PeerID{{1}, {2}, {0}}, true},
		{nodes.RingBi, [][]nodes.PeerID{{1, 2}, {2, 0}, {0, 1}}, true},
		{nodes.Complete, [][]nodes.PeerID{{1, 2, 0}, {1, 2, 0}, {1, 2, 0}}, false}, // ascending rank
	} {
		n := scripted(t, c.topo, script{}, ids...)
		for p := range 3 {
			if got := peers(n, p); !slices.Equal(got, c.want[p]) {
				t.Errorf("%v: process %d has peers %v, want %v", c.topo, p, got, c.want[p])
			}
			next, ok := envOf(t, n, 0).After(nodes.PeerID(p))
			if ok != c.after || (ok && next.ID != nodes.PeerID((p+1)%3)) {
				t.Errorf("%v: After(%d) = %v, %v", c.topo, p, next, ok)
			}
		}
	}
}

// envOf captures process p's Env by having it handle one Initiate.
func envOf(t *testing.T, n *nodetest.Net, p int) nodes.Env {
	t.Helper()
	m := n.Machine(p).(*machine)
	var env nodes.Env
	saved := m.s.initiate
	m.s.initiate = func(_ *machine, e nodes.Env) { env = e }
	n.Initiate(p)
	m.s.initiate = saved
	return env
}

func TestCutBlockHeal(t *testing.T) {
	n := scripted(t, nodes.Complete, script{}, 1, 2, 3)
	n.Start()
	send := func(from, to int) { envOf(t, n, from).Send(nodes.PeerID(to), ping(uint64(from))) }
	n.Cut([]int{0}, []int{1, 2})
	n.Block(1, 2)
	send(0, 1) // across the cut: lost
	send(1, 0) // across, the other way: lost
	send(2, 1) // inside a group, and not the blocked direction
	send(1, 2) // blocked one way
	n.Stabilize(5 * T)
	n.Heal()
	send(0, 1)
	n.Stabilize(5 * T)
	var got []string
	for _, e := range n.Events() {
		if e.Kind == trial.EvRecv || e.Kind == trial.EvLose || e.Kind == trial.EvFault {
			got = append(got, e.Line())
		}
	}
	want := []string{
		"fault cut 0|1,2", "fault cut 1->2",
		"lose 0->1 NODETEST_PING", "lose 1->0 NODETEST_PING(r=1)",
		"lose 1->2 NODETEST_PING(r=1)", "recv 2->1 NODETEST_PING(r=2)",
		"fault heal", "recv 0->1 NODETEST_PING",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
	if n.Messages() != 5 {
		t.Fatalf("%d messages, want 5: a lost message is still a message sent", n.Messages())
	}
}

func TestCrashDropsAndSilences(t *testing.T) {
	n := scripted(t, nodes.Complete, script{
		start: func(m *machine, e nodes.Env) {
			e.SetTimer(3*T, tick)
			id := e.Self().ID[3]
			e.Send(nodes.PeerID(id%3), ping(id))
		},
	}, 1, 2, 3) // process p has id p+1 and sends to p+1 mod 3
	n.Start()
	n.Crash(1)
	if _, ok := n.Armed(1, tick); ok {
		t.Fatal("a crashed process's timer is still armed")
	}
	n.Initiate(1)
	n.Suspect(1, 0)
	n.Receive(1, 0, ping(7))
	n.Stabilize(10 * T)
	if got := n.Machine(1).(*machine).handled; got != 1 {
		t.Fatalf("the crashed process handled %d events, want only its start", got)
	}
	want := "drop 0->1 NODETEST_PING(r=1)"
	var drops []string
	for _, e := range n.Events() {
		if e.Kind == trial.EvDrop {
			drops = append(drops, e.Line())
		}
		if e.P == 1 && (e.Kind == trial.EvTimer || e.Kind == trial.EvInitiate || e.Kind == trial.EvSuspect) ||
			e.Q == 1 && e.Kind == trial.EvRecv {
			t.Fatalf("the crashed process was handed %v", e)
		}
	}
	if !slices.Equal(drops, []string{want}) {
		t.Fatalf("drops %q, want %q", drops, want)
	}
	if got := n.Fired(); !maps.Equal(got, map[string]int{"NODETEST_TICK": 2}) {
		t.Fatalf("timers fired %v, want the two live processes' ticks", got)
	}
	if n.Messages() != 3 || n.LastElection() != T {
		t.Fatalf("%d messages, last delivered at %v; want 3, T", n.Messages(), n.LastElection())
	}
}

func TestRestart(t *testing.T) {
	n := scripted(t, nodes.RingUni, script{
		start: func(m *machine, e nodes.Env) {
			e.SetTimer(5*T, tick)
			e.Decide(e.Self())
		},
		receive: func(m *machine, e nodes.Env, _ nodes.PeerID, msg nodes.Message) { e.Decide(msg.Rank) },
	}, 10, 20)
	n.Start()
	old := n.Machine(1)
	n.RunUntil(2 * T)
	n.Receive(1, 0, ping(30))
	n.Restart(1)
	if n.Machine(1) == old || n.Machine(1).(*machine).handled != 1 {
		t.Fatal("restart did not start a fresh machine")
	}
	if at, ok := n.Armed(1, tick); !ok || at != 7*T {
		t.Fatalf("after the restart the timer expires at %v (%v), want 7T: the old one is gone, the new start armed it", at, ok)
	}
	n.Crash(0)
	n.Restart(0)
	n.Receive(0, 1, ping(40))
	n.ExpectDecided(1, 20, 30, 20) // history survives a restart
	n.ExpectDecided(0, 10, 10, 40) // a crashed process restarts and handles messages again
	n.Stabilize(20 * T)
	if got := n.Fired()["NODETEST_TICK"]; got != 2 {
		t.Fatalf("tick fired %d times, want once per live machine", got)
	}
	if envOf(t, n, 1).Self() != nodes.RankOf(20) {
		t.Fatal("the restarted process has another rank")
	}
}

func TestTimersReplaceAndCancel(t *testing.T) {
	n := scripted(t, nodes.Complete, script{}, 1)
	n.Start()
	e := envOf(t, n, 0)
	e.SetTimer(4*T, tick)
	e.SetTimer(2*T, tick) // replaces: only the 2T expiry remains
	e.SetTimer(T, tock)
	e.SetTimer(2*T, tock) // replaces, later: the 1T expiry is void
	e.CancelTimer(tock)
	e.CancelTimer(tock) // cancelling twice is a no-op
	n.ExpectArmed(0, tick, 2*T)
	n.ExpectArmed(0, tock, nodetest.NotArmed)
	e.SetTimer(3*T, tock)
	n.ExpectArmed(0, tock, 3*T)
	n.RunUntil(2 * T)
	if got := n.Fired(); !maps.Equal(got, map[string]int{"NODETEST_TICK": 1}) {
		t.Fatalf("fired %v by 2T, want one tick: a replaced or cancelled expiry fired", got)
	}
	e.CancelTimer(tock)
	n.Stabilize(3 * T) // the void 4T expiry does not keep the network busy
	n.ExpectArmed(0, tick, nodetest.NotArmed)
	if got := n.Fired(); !maps.Equal(got, map[string]int{"NODETEST_TICK": 1}) || n.Now() != 2*T {
		t.Fatalf("fired %v, clock %v; want one tick at 2T", got, n.Now())
	}

	e.SetTimer(T, tock)
	n.Fire(0, tock) // now, ahead of time; the queued expiry is then stale
	n.ExpectArmed(0, tock, nodetest.NotArmed)
	if n.Step() {
		t.Fatal("a fired timer's queued expiry was handled")
	}
	if got := n.Fired()["NODETEST_TOCK"]; got != 1 || n.TimersArmed() != 6 {
		t.Fatalf("tock fired %d times, %d timers armed; want 1 and 6", got, n.TimersArmed())
	}
}

func TestPauseHoldsEvents(t *testing.T) {
	n := scripted(t, nodes.Complete, script{
		start: func(m *machine, e nodes.Env) {
			if e.Self() == nodes.RankOf(2) {
				e.SetTimer(T, tick)
			}
		},
	}, 1, 2)
	n.Start()
	n.Pause(1)
	envOf(t, n, 0).Send(1, ping(1))
	envOf(t, n, 0).Send(1, ping(2))
	n.RunUntil(5 * T)
	if got := n.Machine(1).(*machine).handled; got != 1 {
		t.Fatalf("a paused process handled %d events", got)
	}
	n.Resume(1)
	n.Stabilize(5 * T)
	var got []string
	for _, e := range n.Events() {
		if e.At == 5*T {
			got = append(got, e.Line())
		}
	}
	want := []string{"resume p=1", "recv 0->1 NODETEST_PING(r=1)", "recv 0->1 NODETEST_PING(r=2)", "timer p=1 NODETEST_TICK"}
	if !slices.Equal(got, want) {
		t.Fatalf("at resume %q, want %q", got, want)
	}
}

func TestDropAndStep(t *testing.T) {
	n := scripted(t, nodes.Complete, script{}, 1, 2)
	n.Start()
	e := envOf(t, n, 0)
	e.Send(1, ping(1))
	e.Send(1, nodes.Message{Kind: kindBeat})
	e.Send(0, ping(2))
	delay := 8 * T // decreasing delays: the heap's order differs from the send order
	n.SetLatency(func(*rand.Rand) time.Duration { delay -= T; return delay })
	for i := range 6 {
		e.Send(0, ping(uint64(10+i)))
	}
	n.SetLatency(nil)
	if got := n.Drop(func(e nodetest.Envelope) bool { return e.Msg.Rank.ID[3] >= 10 }); got != 6 {
		t.Fatalf("dropped %d, want 6", got)
	}
	if got := n.Drop(func(e nodetest.Envelope) bool { return e.To == 1 && e.Msg.Kind == kindPing }); got != 1 {
		t.Fatalf("dropped %d, want 1", got)
	}
	var drops []string
	for _, e := range n.Events() {
		if e.Kind == trial.EvLose {
			drops = append(drops, e.Line())
		}
	}
	want := []string{"lose 0->0 NODETEST_PING(r=10)", "lose 0->0 NODETEST_PING(r=11)", "lose 0->0 NODETEST_PING(r=12)",
		"lose 0->0 NODETEST_PING(r=13)", "lose 0->0 NODETEST_PING(r=14)", "lose 0->0 NODETEST_PING(r=15)",
		"lose 0->1 NODETEST_PING(r=1)"}
	if !slices.Equal(drops, want) {
		t.Fatalf("drops %q, want %q: in send order", drops, want)
	}
	if !n.Step() || n.Now() != T {
		t.Fatal("no step at T")
	}
	if got := lines(n)[len(lines(n))-1]; got != "t=1T recv 0->1 NODETEST_BEAT" {
		t.Fatalf("first step: %s", got)
	}
	n.Step()
	if n.Step() {
		t.Fatal("a step after everything was delivered")
	}
	if got := n.SentByKind(); !maps.Equal(got, map[string]int{"NODETEST_PING": 8, "NODETEST_BEAT": 1}) {
		t.Fatalf("sent %v", got)
	}
	if got := len(n.Take()); got != 9 {
		t.Fatalf("took %d messages, want 9", got)
	}
	n.ExpectSent() // Take forgets what it returned
	// A beat is maintenance, not election traffic: the turnaround ends with
	// the last election message.
	e.Send(1, nodes.Message{Kind: kindBeat})
	n.Stabilize(5 * T)
	if n.LastElection() != T || n.Now() != 2*T {
		t.Fatalf("last election message at %v, clock %v; want T, 2T", n.LastElection(), n.Now())
	}
}

// failTB records the first fatal failure; run calls f on its own goroutine,
// so that the failure's Goexit ends only f.
type failTB struct {
	testing.TB
	msg string
}

func (f *failTB) Helper() {}
func (f *failTB) Fatal(args ...any) {
	f.msg = strings.TrimSpace(fmt.Sprintln(args...))
	runtime.Goexit()
}
func (f *failTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *failTB) run(fn func()) string {
	f.msg = ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
	return f.msg
}

// Misuse and an unsettled network fail the test with a message saying what
// went wrong.
func TestFailures(t *testing.T) {
	tb := &failTB{TB: t}
	var n *nodetest.Net
	tb.run(func() {
		n = nodetest.New(tb, nodetest.Config{Algorithm: scriptAlg(nodes.Complete, script{
			timeout: func(m *machine, e nodes.Env, tm nodes.TimerID) { e.SetTimer(T, tm) },
			receive: func(m *machine, e nodes.Env, _ nodes.PeerID, _ nodes.Message) { e.Send(7, ping(1)) },
		}), Ranks: nodetest.Ranks(1, 2)})
		n.Start()
	})
	for _, c := range []struct {
		do   func()
		want string
	}{
		{func() { n.Fire(0, tick) }, "nodetest: process 0: timer NODETEST_TICK is not armed"},
		{func() { n.Receive(1, 0, ping(1)) }, "nodetest: process 1 sent NODETEST_PING to peer 7, which does not exist"},
		{func() { n.Start() }, "nodetest: Start called twice"},
		{func() { n.RunUntil(3 * T); n.Jump(2 * T) }, "nodetest: Jump to 2ms, before now (3ms)"},
		{func() { n.Fire(0, tick) }, "nodetest: process 0: timer NODETEST_TICK is not armed"},
		{func() { envOf(t, n, 0).SetTimer(T, tick); n.Stabilize(10 * T) }, "nodetest: script still busy at 10ms (next event at 11ms)"},
		{func() { n.ExpectArmed(0, tick, 2*T) }, "process 0: timer NODETEST_TICK expires at 11ms, want 2ms (-1: not armed)"},
		{func() { n.ExpectArmedWithin(0, tick, 0, T) }, "process 0: timer NODETEST_TICK expires at 11ms (armed: true), want within [0s, 1ms]"},
		{func() { n.ExpectDecided(0, 1) }, "process 0 decided [], want [1]"},
		{func() { envOf(t, n, 0).Send(1, ping(1)); n.ExpectSent() }, "sent [0->1 NODETEST_PING(r=1)], want []"},
	} {
		if got := tb.run(c.do); got != c.want {
			t.Errorf("failed with %q, want %q", got, c.want)
		}
	}
	if got := tb.run(func() { nodetest.Build(tb, "no-such-algorithm", nil, 1) }); !strings.HasPrefix(got, `nodetest: unknown algorithm "no-such-algorithm"`) {
		t.Errorf("an unknown algorithm fails with %q", got)
	}
	if got := tb.run(func() { nodetest.Build(tb, "nodetest-registered/two", nil, 1) }); !strings.Contains(got, `has no variant "two"`) {
		t.Errorf("an unknown variant fails with %q", got)
	}
}

func TestRunLimitAndJump(t *testing.T) {
	n := scripted(t, nodes.Complete, script{
		timeout: func(m *machine, e nodes.Env, tm nodes.TimerID) { e.SetTimer(10*T, tm) },
	}, 1)
	n.Start()
	envOf(t, n, 0).SetTimer(10*T, tick)
	if n.Run(25 * T) {
		t.Fatal("a network with a periodic timer came to rest")
	}
	if n.Now() != 20*T || n.Fired()["NODETEST_TICK"] != 2 {
		t.Fatalf("clock %v, ticks %d; want 20T, 2", n.Now(), n.Fired()["NODETEST_TICK"])
	}
	n.RunUntil(25 * T)
	n.Jump(35 * T) // the 30T tick is now late: handled at 35T
	n.RunUntil(35 * T)
	if at, _ := n.Armed(0, tick); at != 45*T {
		t.Fatalf("re-armed for %v, want 45T", at)
	}
}

func TestSeededRand(t *testing.T) {
	draws := func(seed uint64) []uint64 {
		var out []uint64
		n := nodetest.New(t, nodetest.Config{Algorithm: randAlg(&out), Ranks: nodetest.Ranks(1, 2), Seed: seed,
			Latency: func(r *rand.Rand) time.Duration { return time.Duration(1 + r.IntN(1000)) }})
		n.Start()
		n.Stabilize(time.Second)
		for _, e := range n.Events() {
			if e.Kind == trial.EvRecv {
				out = append(out, uint64(e.At))
			}
		}
		if n.RandCalls() != 2 {
			t.Fatalf("%d Rand calls, want 2", n.RandCalls())
		}
		return out
	}
	a, b, c := draws(1), draws(1), draws(2)
	if !slices.Equal(a, b) || slices.Equal(a, c) || a[0] == a[1] {
		t.Fatalf("draws %v, %v, %v: want equal for one seed, different across seeds and processes", a, b, c)
	}
}

// randAlg's processes draw one number at start and send it to themselves.
func randAlg(out *[]uint64) *nodes.Algorithm {
	return &nodes.Algorithm{Name: "rand", Topology: nodes.Complete, Variants: []nodes.Variant{{Name: "default"}},
		New: func(nodes.Config) (func() nodes.Machine, error) {
			return func() nodes.Machine {
				return &machine{s: &script{start: func(m *machine, e nodes.Env) {
					v := e.Rand().Uint64()
					*out = append(*out, v)
					e.Send(nodes.PeerID(slices.IndexFunc(e.Peers(), func(p nodes.Peer) bool { return p.Rank == e.Self() })), ping(v>>40))
				}}}
			}, nil
		}}
}

// nodes.Phased: the runtime reads the phase after every event; any two
// processes in Normal must agree on the leader.
func TestPhases(t *testing.T) {
	n := scripted(t, nodes.Complete, script{
		phased: true,
		receive: func(m *machine, e nodes.Env, _ nodes.PeerID, msg nodes.Message) {
			e.Decide(msg.Rank)
			m.phase = "Waiting"
			if msg.Kind == kindBeat {
				m.phase = nodes.PhaseNormal
			}
		},
	}, 1, 2)
	n.Start()
	n.Receive(0, 1, ping(2))
	n.Receive(1, 0, ping(1))
	if n.PhaseViolations() != 0 {
		t.Fatal("processes in Waiting counted as disagreeing")
	}
	n.Receive(0, 1, nodes.Message{Kind: kindBeat, Rank: nodes.RankOf(2)})
	n.Receive(1, 0, nodes.Message{Kind: kindBeat, Rank: nodes.RankOf(1)})
	if n.PhaseViolations() != 1 {
		t.Fatalf("%d violations, want 1", n.PhaseViolations())
	}
	if got := lines(n); got[4] != "t=0T phase p=0 Waiting" || got[len(got)-1] != "t=0T phase p=1 Normal" {
		t.Fatalf("transcript %q", got)
	}
}

// registered is in the registry, so that Build finds it by name; lastConfig
// is what its constructor was last given.
var (
	registered = nodes.Algorithm{Name: "nodetest-registered", Family: "test", Topology: nodes.Complete,
		Variants: []nodes.Variant{{Name: "one"}, {Name: "three"}},
		New: func(cfg nodes.Config) (func() nodes.Machine, error) {
			lastConfig = cfg
			return func() nodes.Machine {
				return &machine{s: &script{start: func(m *machine, e nodes.Env) {
					e.Decide(nodes.RankOf(uint64(len(cfg.Variant))))
				}}}
			}, nil
		}}
	lastConfig nodes.Config
)

func init() { nodes.Register(registered) }

func TestBuildByName(t *testing.T) {
	for _, c := range []struct {
		cfg     nodetest.Config
		variant string
	}{
		{nodetest.Config{Name: "nodetest-registered"}, "one"},
		{nodetest.Config{Name: "nodetest-registered/three"}, "three"},
		{nodetest.Config{Name: "nodetest-registered", Variant: "three"}, "three"},
	} {
		c.cfg.Params, c.cfg.Ranks = nodes.Params{"x": "1"}, nodetest.Ranks(1, 2)
		n := nodetest.New(t, c.cfg)
		n.Start()
		n.ExpectDecided(0, uint64(len(c.variant)))
		if got := lastConfig; got.T != nodetest.DefaultT || got.N != 2 || got.Params["x"] != "1" || got.Variant != c.variant {
			t.Errorf("%+v: the algorithm was given %+v", c.cfg, got)
		}
		if !strings.HasPrefix(n.Transcript(), "# nodetest-registered/"+c.variant+" params x=1 ranks 1 2\n") {
			t.Errorf("%+v: header %q", c.cfg, strings.SplitN(n.Transcript(), "\n", 2)[0])
		}
	}
	n := nodetest.Build(t, "nodetest-registered/three", nil, 4, 5, 6)
	n.Start()
	if n.Size() != 3 || n.Rank(2) != nodes.RankOf(6) || lastConfig.Variant != "three" {
		t.Fatalf("Build made %d processes, rank %v, variant %s", n.Size(), n.Rank(2), lastConfig.Variant)
	}
}

func TestFormats(t *testing.T) {
	for m, want := range map[nodes.Message]string{
		{Kind: kindPing}:                        "NODETEST_PING",
		{Kind: kindPing, Rank: nodes.RankOf(5)}: "NODETEST_PING(r=5)",
		{Kind: kindPing, Rank: nodes.RankOf(30), Aux: nodes.RankOf(2), A: 1, B: -1}: "NODETEST_PING(r=30 aux=2 a=1 b=-1)",
		{Kind: kindPing, Rank: nodes.Rank{Attr: 3, ID: nodes.IDFromUint64(4)}}:      "NODETEST_PING(r=3/4)",
	} {
		if got := trial.FormatMessage(m); got != want {
			t.Errorf("%+v formats as %q, want %q", m, got, want)
		}
	}
	n := nodetest.New(t, nodetest.Config{Algorithm: randAlg(new([]uint64)), Ranks: nodetest.Ranks(1), T: 4 * time.Millisecond,
		Latency: func(*rand.Rand) time.Duration { return 6 * time.Millisecond }})
	n.Start()
	n.Stabilize(time.Second)
	if got := lines(n)[2]; !strings.HasPrefix(got, "t=1.5T recv 0->0 ") {
		t.Fatalf("a delivery after 6ms with T = 4ms reads %q", got)
	}
}
