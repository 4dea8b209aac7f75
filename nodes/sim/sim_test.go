package sim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// probe is a test-only machine: it records what happens to it and does what
// the test's script says.
type probe struct {
	log    *[]string
	script func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message)
}

var (
	kPing  = nodes.RegisterKind("TEST_PING", nodes.ElectionClass)
	kPong  = nodes.RegisterKind("TEST_PONG", nodes.ElectionClass)
	kBeat  = nodes.RegisterKind("TEST_BEAT", nodes.MaintenanceClass)
	tWait  = nodes.RegisterTimer("WAIT", nodes.ElectionClass)
	tOther = nodes.RegisterTimer("OTHER", nodes.ElectionClass)
)

func (p *probe) Start(env nodes.Env)    { p.script(p, env, "start", -1, nodes.Message{}) }
func (p *probe) Initiate(env nodes.Env) { p.script(p, env, "initiate", -1, nodes.Message{}) }
func (p *probe) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	p.script(p, env, "recv", from, m)
}
func (p *probe) Timeout(env nodes.Env, t nodes.TimerID) {
	p.script(p, env, "timeout:"+t.String(), -1, nodes.Message{})
}
func (p *probe) Suspect(env nodes.Env, q nodes.PeerID) {}

// algo wraps a script as an algorithm on a complete graph.
func algo(log *[]string, script func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message)) *nodes.Algorithm {
	return &nodes.Algorithm{
		Name: "probe", Topology: nodes.Complete,
		Variants: []nodes.Variant{{Name: "default"}},
		New: func(nodes.Config) (func() nodes.Machine, error) {
			return func() nodes.Machine { return &probe{log: log, script: script} }, nil
		},
	}
}

func ranks(n int) []nodes.Rank {
	r := make([]nodes.Rank, n)
	for i := range r {
		r[i] = nodes.RankOf(uint64(i + 1))
	}
	return r
}

// ALGORITHMS.md: "message deliveries are processed before timer expirations,
// so a timer set to exactly a round trip (2T) does not fire ahead of the
// answer that arrives at that instant."
func TestDeliveryBeforeTimerAtSameInstant(t *testing.T) {
	var log []string
	a := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		self := env.Self()
		switch {
		case ev == "initiate":
			env.Send(1, nodes.Message{Kind: kPing})
			env.SetTimer(2*time.Millisecond, tWait)
		case ev == "recv" && m.Kind == kPing:
			env.Send(from, nodes.Message{Kind: kPong})
		case ev == "recv" || strings.HasPrefix(ev, "timeout"):
			log = append(log, self.String()+" "+ev+" "+env.Now().String())
		}
	})
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(2)), Initiators: []int{0}, Latency: trial.Constant(time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1 recv 2ms", "1 timeout:WAIT 2ms"}
	if strings.Join(log, "|") != strings.Join(want, "|") {
		t.Fatalf("order = %q, want %q", log, want)
	}
	if res.Messages != 2 || res.Timeouts != 1 || res.Fired[tWait] != 1 || res.LastElection != 2*time.Millisecond {
		t.Fatalf("counts: %+v", res)
	}
}

// Links are FIFO unless a fault says otherwise, whatever the latency model.
func TestLinksAreFIFOUnderRandomLatency(t *testing.T) {
	for _, lat := range []string{"exponential(1ms)", "uniform(0s,5ms)", "normal(2ms,2ms)"} {
		var got []int64
		a := algo(nil, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
			switch ev {
			case "initiate":
				for i := range 200 {
					env.Send(1, nodes.Message{Kind: kPing, A: int64(i + 1)})
				}
			case "recv":
				got = append(got, m.A)
			}
		})
		l, err := trial.ParseLatency(lat)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(2)), Initiators: []int{0}, Latency: l, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 200 {
			t.Fatalf("%s: %d delivered", lat, len(got))
		}
		for i, v := range got {
			if v != int64(i+1) {
				t.Fatalf("%s: delivery %d carried %d: a message overtook another on one link", lat, i, v)
			}
		}
	}
}

// gossip is a busy random algorithm used for determinism checks: every
// process forwards each message to a random peer until a hop budget runs out,
// with timers in between.
func gossip() *nodes.Algorithm {
	return algo(nil, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		peers := env.Peers()
		pick := func() nodes.PeerID { return peers[env.Rand().IntN(len(peers))].ID }
		switch {
		case ev == "initiate":
			env.Send(pick(), nodes.Message{Kind: kPing, A: 50})
			env.SetTimer(time.Duration(env.Rand().IntN(5000))*time.Microsecond, tOther)
		case ev == "recv" && m.A > 1:
			env.Send(pick(), nodes.Message{Kind: kPing, A: m.A - 1, Rank: env.Self()})
		case ev == "recv":
			env.Decide(m.Rank)
		case ev == "timeout:OTHER":
			env.Send(pick(), nodes.Message{Kind: kBeat})
		}
	})
}

func traceHash(t *testing.T, seed uint64, lat string) [32]byte {
	t.Helper()
	l, err := trial.ParseLatency(lat)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	tr := trial.NewTrace(&buf)
	if _, err := Run(trial.Config{Algorithm: gossip(), Ranks: nodes.RanksOf(ranks(16)), Initiators: []int{0, 3, 5, 9}, Latency: l, Seed: seed, Events: tr}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Flush(); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Fatal("empty trace")
	}
	return sha256.Sum256(buf.Bytes())
}

// Same seed, same bytes: the trace of a run is a function of its seed.
func TestDeterministicTrace(t *testing.T) {
	for _, lat := range []string{"1ms", "uniform(1ms,5ms)", "exponential(2ms)", "normal(5ms,1ms)"} {
		for seed := uint64(1); seed <= 5; seed++ {
			if traceHash(t, seed, lat) != traceHash(t, seed, lat) {
				t.Fatalf("%s seed %d: two runs gave different traces", lat, seed)
			}
		}
		if traceHash(t, 1, lat) == traceHash(t, 2, lat) {
			t.Fatalf("%s: seeds 1 and 2 gave the same trace; the seed is not used", lat)
		}
	}
}

func TestTimerCancelAndRearm(t *testing.T) {
	var log []string
	a := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch ev {
		case "initiate":
			env.SetTimer(5*time.Millisecond, tWait)
			env.SetTimer(3*time.Millisecond, tWait) // replaces the first
			env.SetTimer(time.Millisecond, tOther)
			env.CancelTimer(tOther)
			env.CancelTimer(tOther) // no-op
		case "start":
		default:
			log = append(log, ev+" "+env.Now().String())
		}
	})
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(2)), Initiators: []int{0}, Latency: trial.Constant(time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(log, "|") != "timeout:WAIT 3ms" || res.Timeouts != 1 || res.TimeoutsByKind()["WAIT"] != 1 {
		t.Fatalf("log %q, timeouts %v", log, res.TimeoutsByKind())
	}
}

func TestCountsAndBytes(t *testing.T) {
	a := algo(nil, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		if ev == "initiate" {
			env.Send(1, nodes.Message{Kind: kPing, Rank: nodes.RankOf(300)})
			env.Send(1, nodes.Message{Kind: kBeat})
			env.Send(0, nodes.Message{Kind: kPong, A: -3})
		}
	})
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(2)), Initiators: []int{0}, Latency: trial.Constant(time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	want := int64(nodes.Message{Kind: kPing, Rank: nodes.RankOf(300)}.EncodedSize() +
		nodes.Message{Kind: kBeat}.EncodedSize() + nodes.Message{Kind: kPong, A: -3}.EncodedSize())
	if res.Bytes != want {
		t.Errorf("bytes = %d, want %d", res.Bytes, want)
	}
	// Maintenance kinds are counted by kind but are not election messages.
	if res.Messages != 2 || res.MessagesByKind()["TEST_BEAT"] != 1 || res.MessagesByKind()["TEST_PING"] != 1 {
		t.Errorf("messages %d by kind %v", res.Messages, res.MessagesByKind())
	}
	if res.LastElection != 1*time.Millisecond {
		t.Errorf("last election delivery at %v, want 1ms", res.LastElection)
	}
}

func TestDeadlineStopsEndlessRun(t *testing.T) {
	a := algo(nil, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		if ev == "initiate" || ev == "recv" {
			env.Send(1-from&1, nodes.Message{Kind: kPing})
		}
	})
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(2)), Initiators: []int{0}, Latency: trial.Constant(time.Millisecond), Deadline: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Quiescent || res.End > 50*time.Millisecond || res.Messages < 50 {
		t.Fatalf("quiescent=%v end=%v messages=%d", res.Quiescent, res.End, res.Messages)
	}
}

func TestConfigErrors(t *testing.T) {
	a := gossip()
	lat := trial.Constant(time.Millisecond)
	for _, tc := range []struct {
		cfg  trial.Config
		want string
	}{
		{trial.Config{Ranks: nodes.RanksOf(ranks(3)), Latency: lat}, "no algorithm"},
		{trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(3))}, "no latency"},
		{trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(1)), Latency: lat}, "at least 2"},
		{trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(3)), Latency: lat, Initiators: []int{3}}, "initiator position 3 out of range 0..2"},
		{trial.Config{Algorithm: a, Ranks: nodes.RanksOf([]nodes.Rank{{}, nodes.RankOf(1)}), Latency: lat}, "zero rank"},
		{trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(3)), Latency: lat, Params: nodes.Params{"x": "1"}}, "takes no parameters"},
	} {
		_, err := Run(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to mention %q", err, tc.want)
		}
	}
}

func TestParseLatency(t *testing.T) {
	for spec, want := range map[string]string{
		"1ms": "constant(1ms)", "constant(2ms)": "constant(2ms)", "uniform(1ms, 5ms)": "uniform(1ms,5ms)",
		"normal(5ms,1ms)": "normal(5ms,1ms)", "exponential(3ms)": "exponential(3ms)",
	} {
		l, err := trial.ParseLatency(spec)
		if err != nil || l.String() != want {
			t.Errorf("ParseLatency(%q) = %v, %v; want %s", spec, l, err, want)
		}
	}
	for spec, want := range map[string]string{
		"": "not a duration", "fast": "not a duration", "uniform(5ms,1ms)": "a ≤ b", "gauss(1ms)": "unknown model",
		"uniform(1ms)": "takes 2", "0s": "must be positive", "constant(-1ms)": "negative", "normal(1ms,x)": "argument 2",
	} {
		if _, err := trial.ParseLatency(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLatency(%q) error %v, want it to mention %q", spec, err, want)
		}
	}
}

// Issue 21: a trial that passes its budget stops at once with a
// trial.BudgetError and the record counted so far. A ping-pong between two
// processes never ends on its own; every budget bound stops it exactly.
func TestBudgetStopsTrial(t *testing.T) {
	var log []string
	pingPong := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch ev {
		case "initiate":
			env.Send(1, nodes.Message{Kind: kPing})
		case "recv":
			// Answer with two: the messages in flight double every round trip.
			env.Send(from, nodes.Message{Kind: kPing})
			env.Send(from, nodes.Message{Kind: kPing})
		}
	})
	for _, tc := range []struct {
		budget trial.Budget
		what   string
	}{
		{trial.Budget{MaxEvents: 1000, MaxInFlight: 1 << 30}, trial.BudgetEvents},
		{trial.Budget{MaxEvents: 1 << 40, MaxInFlight: 5000}, trial.BudgetInFlight},
	} {
		cfg := trial.DefaultConfig()
		cfg.Algorithm, cfg.Ranks, cfg.Initiators, cfg.Budget = pingPong, nodes.RanksOf(ranks(2)), []int{0}, tc.budget
		cfg.Latency = trial.Uniform{Lo: time.Millisecond, Hi: 3 * time.Millisecond}
		rec, err := Run(cfg)
		be, ok := errors.AsType[*trial.BudgetError](err)
		if !ok || rec == nil {
			t.Fatalf("%+v: error %v, record %v; want a BudgetError and the record", tc.budget, err, rec != nil)
		}
		if be.What != tc.what {
			t.Errorf("%+v: stopped for %q, want %q (%v)", tc.budget, be.What, tc.what, err)
		}
		switch tc.what {
		case trial.BudgetEvents:
			if rec.Events != tc.budget.MaxEvents || be.Events != rec.Events {
				t.Errorf("events budget %d: %d events processed (error says %d)", tc.budget.MaxEvents, rec.Events, be.Events)
			}
		case trial.BudgetInFlight:
			if be.Pending != tc.budget.MaxInFlight+1 {
				t.Errorf("in-flight budget %d: stopped with %d pending, want the first count past it", tc.budget.MaxInFlight, be.Pending)
			}
		}
		if rec.Quiescent || rec.Messages == 0 || rec.End != be.At {
			t.Errorf("%+v: quiescent %v, %d messages, end %v (error at %v)", tc.budget, rec.Quiescent, rec.Messages, rec.End, be.At)
		}
		if !strings.HasPrefix(err.Error(), "budget: stopped at ") || !strings.Contains(err.Error(), "--max-"+tc.what) {
			t.Errorf("error %q", err)
		}
	}
	// The default budget is finite and scales with N.
	small, large := trial.DefaultBudget(pingPong, 4, time.Second, time.Millisecond), trial.DefaultBudget(pingPong, 1024, time.Second, time.Millisecond)
	if small.MaxEvents <= 0 || large.MaxEvents <= small.MaxEvents || large.MaxInFlight < small.MaxInFlight {
		t.Errorf("default budgets %+v (N = 4), %+v (N = 1024)", small, large)
	}
}

// TestRunContextCancel: a cancelled trial stops at once with the context's
// error, before the events it would have processed; a trial cancelled
// while it runs stops within cancelEvery events of the cancellation.
func TestRunContextCancel(t *testing.T) {
	n := 2000
	cfg := everyoneInitiates(t, "chang-roberts", n, func(i int) uint64 { return uint64(n - i) }) // descending: N²/2 messages
	full, err := Run(cfg)
	if err != nil || full.Events < 1_000_000 {
		t.Fatalf("uncancelled: %d events, %v", full.Events, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec, err := RunContext(ctx, cfg)
	if !errors.Is(err, context.Canceled) || rec == nil || rec.Events != 0 {
		t.Fatalf("cancelled before: %v, record %v", err, rec)
	}
	// Cancel from the event stream itself, at a known event: the trial
	// must stop at the next look, within 1<<16 events.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	cfg.Events = &cancelAt{at: 100_000, cancel: cancel}
	rec, err = RunContext(ctx, cfg)
	if !errors.Is(err, context.Canceled) || rec.Events < 100_000 || rec.Events > 100_000+1<<16 {
		t.Fatalf("cancelled at event 100000: %v after %d events (of %d)", err, rec.Events, full.Events)
	}
}

// TestCancelCountsSends: one event can send to thousands of processes
// (multicast: every initiation sends to all), so a trial looks at its
// context by the work it does, not by its events alone: cancelled at its
// first message, it sends at most cancelEvery messages more, plus what
// the one event running then sends. Looking every cancelEvery events, it
// sent the other initiations' million.
func TestCancelCountsSends(t *testing.T) {
	n := 1024
	cfg := everyoneInitiates(t, "multicast", n, func(i int) uint64 { return uint64(i + 1) })
	full, err := Run(cfg)
	if err != nil || full.Messages < int64(n*(n-1)) {
		t.Fatalf("uncancelled: %d messages, %v: not the broadcasts this test needs", full.Messages, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg.Events = &cancelAtSend{cancel: cancel}
	rec, err := RunContext(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled at the first message: %v after %d events", err, rec.Events)
	}
	if limit := int64(cancelEvery + n); rec.Messages > limit {
		t.Errorf("cancelled at the first message, it sent %d (at most %d; %d uncancelled)", rec.Messages, limit, full.Messages)
	}
}

// everyoneInitiates is a trial of algo on n processes, position i of
// identity id(i), in which every process initiates, under a constant 1 ms.
func everyoneInitiates(t *testing.T, algo string, n int, id func(i int) uint64) trial.Config {
	t.Helper()
	a, v, err := nodes.Lookup(algo)
	if err != nil {
		t.Fatal(err)
	}
	ranks := make([]nodes.Rank, n)
	for i := range ranks {
		ranks[i] = nodes.RankOf(id(i))
	}
	cfg := trial.Config{Algorithm: a, Variant: v, Ranks: nodes.RanksOf(ranks), Latency: trial.Constant(time.Millisecond), Seed: 1}
	if !a.StartsAll {
		cfg.Initiators = trial.AllPositions(n)
	}
	return cfg
}

// cancelAtSend cancels at the first message sent.
type cancelAtSend struct{ cancel func() }

func (c *cancelAtSend) Kinds() trial.Kinds { return trial.KindsOf(trial.EvSend) }
func (c *cancelAtSend) Event(*trial.Event) { c.cancel() }

// cancelAt cancels after its at-th delivery.
type cancelAt struct {
	seen, at int64
	cancel   func()
}

func (c *cancelAt) Kinds() trial.Kinds { return trial.KindsOf(trial.EvRecv) }
func (c *cancelAt) Event(*trial.Event) {
	if c.seen++; c.seen == c.at {
		c.cancel()
	}
}

// succOf and predOf are (p±1) mod n, for every position of small rings.
func TestRingNeighbours(t *testing.T) {
	for n := int32(1); n <= 9; n++ {
		for p := range n {
			if got, want := succOf(p, n), (p+1)%n; got != want {
				t.Fatalf("succOf(%d, %d) = %d, want %d", p, n, got, want)
			}
			if got, want := predOf(p, n), (p+n-1)%n; got != want {
				t.Fatalf("predOf(%d, %d) = %d, want %d", p, n, got, want)
			}
		}
	}
}

// The simulator computes a ring's peers rather than storing them; what
// Env.Peers returns is nodes.PeersOf, the live runtime's, on every topology.
func TestPeersAsTopology(t *testing.T) {
	for _, topo := range []nodes.Topology{nodes.RingUni, nodes.RingBi, nodes.Complete} {
		for n := 2; n <= 6; n++ {
			rs := make([]nodes.Rank, n)
			for i := range rs {
				rs[i] = nodes.RankOf(uint64((2*n-3-i)%n + 1)) // distinct, not in position order
			}
			got := make([][]nodes.Peer, n)
			a := algo(nil, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
				if ev == "start" {
					self := env.Self()
					got[self.ID[3]-1] = slices.Clone(env.Peers())
				}
			})
			a.Topology = topo
			if _, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(rs), Latency: trial.Constant(time.Millisecond)}); err != nil {
				t.Fatal(err)
			}
			for p, r := range rs {
				if want := nodes.PeersOf(topo, rs, p); !slices.Equal(got[r.ID[3]-1], want) {
					t.Fatalf("%s n=%d position %d: Peers %v, PeersOf %v", topo, n, p, got[r.ID[3]-1], want)
				}
			}
		}
	}
}
