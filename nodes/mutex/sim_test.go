package mutex_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	_ "github.com/electbench/electbench/nodes/mutex"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// The figures of ALGORITHMS.md ("Mutual exclusion") on the simulator under
// the reference model, judged by the checker from the processes' phases.

const T = time.Millisecond

var sizes = []int{3, 5, 8, 16, 33}

// outcome is one measured trial.
type outcome struct {
	rec *trial.Record
	v   check.Verdict
	alg *nodes.Algorithm
}

// setup describes a trial: the algorithm ("name" or "name/variant"), its
// parameters, the ids by position, who requests, the latency model.
type setup struct {
	spec       string
	params     nodes.Params
	ids        []uint64
	initiators []int
	latency    trial.Latency
	seed       uint64
	crashes    []trial.Fault
	deadline   time.Duration
}

func ascending(n int) []uint64 {
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = uint64(i + 1)
	}
	return ids
}

func run(t *testing.T, s setup) outcome {
	t.Helper()
	alg, variant, err := nodes.Lookup(s.spec)
	if err != nil {
		t.Fatal(err)
	}
	ranks := make([]nodes.Rank, len(s.ids))
	for i, id := range s.ids {
		ranks[i] = nodes.RankOf(id)
	}
	c := check.New(nodes.RanksOf(ranks))
	if err := c.WatchMutex(alg); err != nil {
		t.Fatal(err)
	}
	cfg := trial.DefaultConfig()
	cfg.Algorithm, cfg.Variant, cfg.Params, cfg.Ranks, cfg.Initiators = alg, variant, s.params, nodes.RanksOf(ranks), s.initiators
	cfg.Events, cfg.Faults, cfg.Deadline = c, s.crashes, s.deadline
	if s.latency != nil {
		cfg.Latency = s.latency
	}
	if s.seed != 0 {
		cfg.Seed = s.seed
	}
	rec, err := sim.Run(cfg)
	if err != nil {
		t.Fatalf("%s: %v", s.spec, err)
	}
	return outcome{rec: rec, v: c.Finish(&rec.Decisions, rec.Quiescent, rec.End), alg: alg}
}

// sent is the number of messages of the named kinds.
func (o outcome) sent(names ...string) int64 {
	var n int64
	by := o.rec.MessagesByKind()
	for _, k := range names {
		n += by[k]
	}
	return n
}

func (o outcome) ok(t *testing.T, entries int) {
	t.Helper()
	if !o.v.Live || o.v.Violations > 0 || !o.v.Correct {
		t.Fatalf("live %v, %d violations: %v", o.v.Live, o.v.Violations, o.v.Recorded)
	}
	if len(o.v.Entries) != entries {
		t.Fatalf("%d entries, want %d: %+v", len(o.v.Entries), entries, o.v.Entries)
	}
}

func (o outcome) theory(n int, initiators []int, params nodes.Params, variant string, ranks []uint64) nodes.Theory {
	rs := make([]nodes.Rank, len(ranks))
	for i, id := range ranks {
		rs[i] = nodes.RankOf(id)
	}
	return o.alg.Theory(nodes.TheoryInput{Variant: variant, N: n, Ranks: nodes.RanksOf(rs), Initiators: initiators, Params: params})
}

// "central: 2 messages per entry and 1 per exit, client delay 2T,
// synchronization delay 2T": two processes other than the coordinator
// ask at once; the first waits 2T, the second enters 2T after the first
// leaves.
func TestCentralFigures(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := setup{spec: "central", params: nodes.Params{}, ids: ascending(n), initiators: []int{0, 1}}
			o := run(t, s)
			o.ok(t, 2)
			if got := o.sent("REQUEST", "GRANT"); got != 2*2 {
				t.Errorf("entry messages %d, want 2 per entry", got)
			}
			if got := o.sent("RELEASE"); got != 2 {
				t.Errorf("exit messages %d, want 1 per exit", got)
			}
			if e := o.v.Entries[0]; e.P != 0 || e.Entered-e.Requested != 2*T {
				t.Errorf("first entry %+v: want process 0 after a client delay of 2T", e)
			}
			if e := o.v.Entries[1]; e.Sync != 2*T {
				t.Errorf("second entry %+v: want a synchronization delay of 2T", e)
			}
			if th := o.theory(n, s.initiators, s.params, "", s.ids); th.Messages != o.rec.Messages || th.Messages != 6 {
				t.Errorf("theory %d, measured %d, want 6", th.Messages, o.rec.Messages)
			}
		})
	}
}

// "token ring: 1 message per hop, client delay 0 to N hops,
// synchronization delay 1 to N−1 T". The highest process makes the token
// at time 0 and passes it on at once.
func TestTokenRingFigures(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ids := ascending(n)
			// Nobody asks: the token still travels one hop per T.
			o := run(t, setup{spec: "token-ring", params: nodes.Params{}, ids: ids, deadline: 40 * T})
			o.ok(t, 0)
			if got := o.sent("TOKEN"); got != 41 {
				t.Errorf("%d TOKEN messages in 40T, want 41 (one per hop, the first at time 0)", got)
			}
			// One requester at position p waits for the token's p+1 hops
			// from the highest (position N−1); the highest itself a whole
			// round, N hops.
			var delays []time.Duration
			for p := range n {
				o := run(t, setup{spec: "token-ring", params: nodes.Params{}, ids: ids, initiators: []int{p}, deadline: 4 * time.Duration(n) * T})
				o.ok(t, 1)
				want := time.Duration(p+1) * T
				if p == n-1 {
					want = time.Duration(n) * T
				}
				if d := o.v.Entries[0].Entered - o.v.Entries[0].Requested; d != want {
					t.Errorf("requester %d: client delay %v, want %v", p, d, want)
				}
				delays = append(delays, o.v.Entries[0].Entered-o.v.Entries[0].Requested)
			}
			if slices.Min(delays) != T || slices.Max(delays) != time.Duration(n)*T {
				t.Errorf("client delays %v: want 1 to N hops", delays)
			}
			// Two requesters 0 and q: q gets the token q hops after 0
			// leaves.
			for q := 1; q < n; q++ {
				o := run(t, setup{spec: "token-ring", params: nodes.Params{}, ids: ids, initiators: []int{0, q}, deadline: 4 * time.Duration(n) * T})
				o.ok(t, 2)
				if e := o.v.Entries[1]; e.P != q || e.Sync != time.Duration(q)*T {
					t.Errorf("requesters 0 and %d: second entry %+v, want a synchronization delay of %dT", q, e, q)
				}
			}
		})
	}
}

// "Ricart–Agrawala 2(N−1) per entry, synchronization delay 1T".
func TestRicartAgrawalaFigures(t *testing.T) {
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := setup{spec: "ricart-agrawala", params: nodes.Params{"requests": "2"}, ids: ascending(n), initiators: []int{0, 1}}
			o := run(t, s)
			o.ok(t, 4)
			if got, want := o.rec.Messages, int64(4*2*(n-1)); got != want {
				t.Errorf("%d messages for 4 entries, want 2(N−1) each = %d", got, want)
			}
			if e := o.v.Entries[0]; e.Entered-e.Requested != 2*T {
				t.Errorf("first entry %+v: want a client delay of 2T", e)
			}
			for _, e := range o.v.Entries[1:] {
				if e.Sync != T {
					t.Errorf("entry %+v: want a synchronization delay of 1T", e)
				}
			}
			if th := o.theory(n, s.initiators, s.params, "", s.ids); th.Messages != o.rec.Messages {
				t.Errorf("theory %d, measured %d", th.Messages, o.rec.Messages)
			}
		})
	}
}

// "Maekawa 2K per entry and K per exit, client delay 2T, synchronization
// delay 2T", with K the voting set of the cyclic grid construction. The
// second requester asks 1T after the first (stagger), so the basic
// algorithm does not deadlock.
func TestMaekawaFigures(t *testing.T) {
	wantK := map[int]int{3: 2, 5: 3, 8: 4, 16: 6, 33: 10}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := setup{spec: "maekawa", params: nodes.Params{"stagger": "1T"}, ids: ascending(n), initiators: []int{0, 1}}
			o := run(t, s)
			o.ok(t, 2)
			k := o.alg.Mutex.VotingSet(nodes.Config{N: n})
			if k != wantK[n] {
				t.Fatalf("K = %d, want %d", k, wantK[n])
			}
			if got := o.sent("REQUEST", "REPLY"); got != int64(2*2*k) {
				t.Errorf("entry messages %d for 2 entries, want 2K each (K = %d)", got, k)
			}
			if got := o.sent("RELEASE"); got != int64(2*k) {
				t.Errorf("exit messages %d for 2 exits, want K each (K = %d)", got, k)
			}
			if e := o.v.Entries[0]; e.Entered-e.Requested != 2*T {
				t.Errorf("first entry %+v: want a client delay of 2T", e)
			}
			if e := o.v.Entries[1]; e.Sync != 2*T {
				t.Errorf("second entry %+v: want a synchronization delay of 2T", e)
			}
			if th := o.theory(n, s.initiators, s.params, "basic", s.ids); th.Messages != o.rec.Messages {
				t.Errorf("theory %d, measured %d", th.Messages, o.rec.Messages)
			}
		})
	}
}

// Maekawa's deadlock: every process asks at once, votes for itself first
// and waits for votes the others hold. The checker reports it as a loss
// of liveness; the inquire variant gets everyone through.
func TestMaekawaDeadlock(t *testing.T) {
	for _, n := range []int{3, 5, 16} {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		o := run(t, setup{spec: "maekawa/basic", params: nodes.Params{}, ids: ascending(n), initiators: all})
		if o.v.Live || o.v.Correct || len(o.v.Recorded) == 0 || o.v.Recorded[len(o.v.Recorded)-1].Kind != "deadlock" {
			t.Fatalf("N=%d basic: live %v, recorded %v; want a deadlock", n, o.v.Live, o.v.Recorded)
		}
		if o.v.Violations != 0 {
			t.Errorf("N=%d basic: %d safety violations in a deadlock", n, o.v.Violations)
		}
		o = run(t, setup{spec: "maekawa/inquire", params: nodes.Params{}, ids: ascending(n), initiators: all})
		o.ok(t, n)
	}
}

// "Any request pattern, any latency model, no faults → safety and
// liveness hold for every algorithm" (the deadlock-free ones: maekawa's
// inquire variant), and Ricart–Agrawala's happened-before order.
func TestPropertySafeAndLive(t *testing.T) {
	specs := []string{"central", "token-ring", "token-ring/regenerate", "ricart-agrawala", "maekawa/inquire"}
	latencies := []string{"1ms", "uniform(1ms,5ms)", "exponential(2ms)", "normal(3ms,1ms)"}
	durations := []string{"0", "0.5T", "1T", "3T"}
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		n := 2 + r.IntN(11)
		ids := ascending(n)
		r.Shuffle(n, func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		var initiators []int
		for p := range n {
			if r.IntN(3) > 0 {
				initiators = append(initiators, p)
			}
		}
		requests := 1 + r.IntN(3)
		params := nodes.Params{"requests": fmt.Sprint(requests), "hold": durations[r.IntN(4)],
			"think": durations[r.IntN(4)], "stagger": durations[r.IntN(4)]}
		lat, err := trial.ParseLatency(latencies[r.IntN(len(latencies))])
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range specs {
			name := fmt.Sprintf("seed %d %s N=%d initiators %v %v %s", seed, spec, n, initiators, params, lat)
			o := run(t, setup{spec: spec, params: params, ids: ids, initiators: initiators, latency: lat, seed: seed})
			if !o.v.Live || o.v.Violations > 0 || len(o.v.Entries) != len(initiators)*requests {
				t.Errorf("%s: live %v, %d entries, want %d; %v", name, o.v.Live, len(o.v.Entries), len(initiators)*requests, o.v.Recorded)
			}
			for _, e := range o.v.Entries {
				if e.Exited < e.Entered || e.Entered < e.Requested {
					t.Errorf("%s: entry %+v out of order", name, e)
				}
			}
		}
	}
}
