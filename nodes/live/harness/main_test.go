//go:build unix

package harness_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/live/livetest"
	_ "github.com/electbench/electbench/nodes/quorum"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// TestMain lets the test binary be a live node, as the electbench binary
// re-executes itself as `electbench node` (livetest.Main), with every
// algorithm registered. With ELECTBENCH_LIVE_HARNESS set it is a harness
// instead (TestInterruptedHarness); with ELECTBENCH_TEST_EXTRA_KIND set, a
// node of another build (TestRegistryMismatch).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "toxiproxy-server" {
		// A Toxiproxy server process of a split cluster, as the
		// electbench binary runs `electbench toxiproxy-server
		// [--listen HOST]`.
		host := "127.0.0.1"
		if len(os.Args) == 4 && os.Args[2] == "--listen" {
			host = os.Args[3]
		}
		if err := toxi.Serve(os.Stdin, os.Stdout, host); err != nil {
			fmt.Fprintln(os.Stderr, "toxiproxy-server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		// A host's agent, as the electbench binary runs `electbench agent`.
		os.Exit(agentMain(os.Args[2:]))
	}
	if os.Getenv(extraKind) != "" {
		nodes.RegisterKind("ANOTHER_BUILD", nodes.ElectionClass)
	}
	livetest.Main()
	if url := os.Getenv("ELECTBENCH_LIVE_HARNESS"); url != "" {
		os.Exit(harnessMain(url))
	}
	os.Exit(m.Run())
}

const extraKind = "ELECTBENCH_TEST_EXTRA_KIND"

// options runs this test binary as the nodes and the Toxiproxy server
// processes, their diagnostics shown if the test fails.
func options(t testing.TB) harness.Options {
	t.Helper()
	node, env := livetest.Command(t)
	return harness.Options{Node: node, Server: serverCommand(node[0]), Env: env, Log: livetest.Log(t)}
}

// serverCommand runs this test binary, exe, as a Toxiproxy server process.
func serverCommand(exe string) []string { return []string{exe, "toxiproxy-server"} }

// runtime starts a runtime for the test, closed at its end.
func runtime(t testing.TB, opt harness.Options) *harness.Runtime {
	t.Helper()
	r, err := harness.New(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// observed is a runtime on an embedded Toxiproxy that outlives it (so
// that what the runtime leaves there is seen), with opt's Observe
// appending what each trial acquired to infos. The server stops at the
// test's end.
func observed(t *testing.T) (r *harness.Runtime, opt harness.Options, srv *toxi.Server, infos *[]harness.Info) {
	t.Helper()
	opt = options(t)
	srv, err := toxi.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	opt.Toxiproxy = srv.URL()
	infos = new([]harness.Info)
	opt.Observe = func(i harness.Info) { *infos = append(*infos, i) }
	return runtime(t, opt), opt, srv, infos
}

// random is a seeded arrangement of the ranks 1..n; ascending is 1..n.
func random(n int, seed uint64) []nodes.Rank {
	out := make([]nodes.Rank, n)
	for i, p := range rand.New(rand.NewPCG(seed, 7)).Perm(n) {
		out[i] = nodes.RankOf(uint64(p + 1))
	}
	return out
}

func ascending(n int) []nodes.Rank {
	out := make([]nodes.Rank, n)
	for i := range out {
		out[i] = nodes.RankOf(uint64(i + 1))
	}
	return out
}

// highest and lowest are the positions of the highest and lowest ranks;
// successor is the position after p on the ring.
func highest(ranks []nodes.Rank) int {
	return slices.Index(ranks, slices.MaxFunc(ranks, nodes.Rank.Compare))
}

func lowest(ranks []nodes.Rank) int {
	return slices.Index(ranks, slices.MinFunc(ranks, nodes.Rank.Compare))
}

func successor(ranks []nodes.Rank, p int) int { return (p + 1) % len(ranks) }

// everyone is every position of n.
func everyone(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// config is a fault-free trial of algo over ranks, initiators told to
// initiate (unless the algorithm starts everywhere), with constant latency
// T.
func config(t testing.TB, algo string, ranks []nodes.Rank, initiators []int, T time.Duration) trial.Config {
	t.Helper()
	alg, variant, err := nodes.Lookup(algo)
	if err != nil {
		t.Fatal(err)
	}
	cfg := trial.Config{Algorithm: alg, Variant: variant, Params: nodes.Params{}, Ranks: nodes.RanksOf(ranks), Latency: trial.Constant(T), Seed: 1}
	if !alg.StartsAll {
		cfg.Initiators = initiators
	}
	return cfg
}

// judge checks a trial from its events, as workloads does: for the ranks
// the nodes minted, once the harness knows them (Setup). With record set
// it keeps every event too.
type judge struct {
	cfg     trial.Config
	checker *check.Checker
	record  bool
	events  []trial.Event
}

func newJudge(t testing.TB, cfg *trial.Config, unit time.Duration) *judge {
	t.Helper()
	j := &judge{cfg: *cfg}
	if err := j.build(unit); err != nil {
		t.Fatal(err)
	}
	return j
}

func (j *judge) build(unit time.Duration) error {
	j.checker = check.New(j.cfg.Ranks)
	if a := j.cfg.Algorithm; a.Quorum != nil {
		return j.checker.WatchQuorum(a, nodes.Config{Variant: j.cfg.VariantName(), Params: j.cfg.Params, N: j.cfg.Ranks.Len(), T: unit})
	}
	return nil
}

func (j *judge) Setup(s trial.Setup) {
	j.cfg.Ranks = s.Ranks
	if err := j.build(s.Unit); err != nil {
		panic(err)
	}
}

func (j *judge) Kinds() trial.Kinds {
	if j.record {
		return trial.AllKinds
	}
	return j.checker.Kinds()
}

// ReadsRanks: only a judge that keeps the events reads the messages' ranks.
func (j *judge) ReadsRanks() bool { return j.record }

func (j *judge) Event(e *trial.Event) {
	if j.record {
		j.events = append(j.events, *e)
	}
	if j.checker.Kinds().Has(e.Kind) {
		j.checker.Event(e)
	}
}

func (j *judge) verdict(rec *trial.Record) check.Verdict {
	return j.checker.Finish(&rec.Decisions, rec.Quiescent, rec.End)
}

// run runs cfg live, judged, and fails the test if the trial could not be
// judged faithfully. As workloads runs live trials, an attempt the host
// pushed outside the algorithm's model (trial.OutsideModel) runs again,
// up to trial.MaxReruns times.
func run(t testing.TB, r *harness.Runtime, cfg trial.Config) (*harness.Result, check.Verdict, *judge) {
	t.Helper()
	for reruns := 0; ; reruns++ {
		res, v, j := runOnce(t, r, cfg)
		if !trial.OutsideModel(&cfg, &res.Record) || reruns == trial.MaxReruns {
			return res, v, j
		}
		t.Logf("%s n=%d: %d messages outlasted D = %v (the longest %v): run again", cfg.Algorithm.Name, cfg.Ranks.Len(),
			res.Record.Overruns, res.Record.Bound, res.Record.Delays.Max)
	}
}

// overran reports whether the attempt run kept was still outside the
// algorithm's model, and says so: the host held an election message past
// D in every attempt, and a bully process rightly declared itself under a
// timer that message outlasted, so the verdict measures the host, not the
// algorithm or the harness (beside four busy loops at load 30, 3 of 3
// attempts of a bully trial at N = 6 outlasted D). A test checks a
// verdict only when this is false.
func overran(t testing.TB, cfg *trial.Config, res *harness.Result) bool {
	t.Helper()
	if !trial.OutsideModel(cfg, &res.Record) {
		return false
	}
	t.Logf("%s n=%d: the host held %d messages past D = %v (the longest %v) in each of %d attempts: the verdict is the host's, not checked",
		cfg.Algorithm.Name, cfg.Ranks.Len(), res.Record.Overruns, res.Record.Bound, res.Record.Delays.Max, trial.MaxReruns+1)
	return true
}

// runOnce is run without running again: one attempt, whatever its delays.
func runOnce(t testing.TB, r *harness.Runtime, cfg trial.Config) (*harness.Result, check.Verdict, *judge) {
	t.Helper()
	res, j := runJudged(t, r, cfg, false)
	return res, j.verdict(&res.Record), j
}

// infraAttempts bounds the attempts of a trial that ends in an
// infrastructure failure (trial.ErrInfrastructure). Such a trial is no
// result, and the product's answer to it is to run it again (exit 3,
// --resume), so a test does the same, a bounded number of times: eight
// ZooKeeper JVMs starting side by side beside two busy loops at load
// 30-60 can miss a system trial's formation deadline (30 s + N s), which
// the servers' own wall-clock timers (ZooKeeper's initLimit and election
// back-off) bound as much as the harness's. An infrastructure failure in
// every attempt still fails the test.
const infraAttempts = 3

// runJudged runs cfg once on r with a judge, which keeps every event
// (judge.events) when record is set: once to a result, after up to
// infraAttempts attempts that failed in the infrastructure, each logged
// and each with a fresh judge.
func runJudged(t testing.TB, r *harness.Runtime, cfg trial.Config, record bool) (*harness.Result, *judge) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		res, j, err := runJudgedOnce(t, r, cfg, record)
		switch {
		case err == nil:
			return res, j
		case errors.Is(err, trial.ErrInfrastructure) && attempt < infraAttempts:
			t.Logf("%s n=%d: attempt %d of %d is no result (run again, as --resume would): %v", cfg.Algorithm.Name, cfg.Ranks.Len(), attempt, infraAttempts, err)
		default:
			t.Fatalf("%s n=%d: attempt %d of %d: %v", cfg.Algorithm.Name, cfg.Ranks.Len(), attempt, infraAttempts, err)
		}
	}
}

// runJudgedOnce is one attempt of runJudged.
func runJudgedOnce(t testing.TB, r *harness.Runtime, cfg trial.Config, record bool) (*harness.Result, *judge, error) {
	j := newJudge(t, &cfg, cfg.T())
	j.record = record
	cfg.Events = j
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := r.Run(ctx, cfg)
	return res, j, err
}

// delayRange is the least and the longest delay, delivery time less send
// time, of a trial's delivered messages, on the harness's clock.
func delayRange(events []trial.Event) (least, longest time.Duration) {
	sent := map[uint64]time.Duration{}
	least = time.Duration(1 << 62)
	for _, e := range events {
		switch e.Kind {
		case trial.EvSend:
			sent[e.ID] = e.At
		case trial.EvRecv:
			if s, ok := sent[e.ID]; ok {
				least, longest = min(least, e.At-s), max(longest, e.At-s)
			}
		}
	}
	return least, longest
}

// simulate runs cfg on the simulator, judged.
func simulate(t testing.TB, cfg trial.Config) (*trial.Record, check.Verdict, *judge) {
	t.Helper()
	j := newJudge(t, &cfg, cfg.T())
	cfg.Events = j
	rec, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rec, j.verdict(rec), j
}

// leaderPos is the position of the process a verdict names as leader.
func leaderPos(t testing.TB, ranks []nodes.Rank, leader string) int {
	t.Helper()
	r, err := nodes.ParseRank(leader)
	if err != nil {
		t.Fatalf("leader %q: %v", leader, err)
	}
	return slices.Index(ranks, r)
}

// turnaroundMeasured is a live record's turnaround in units of the mean
// delay its election messages took (turnaround_tm).
func turnaroundMeasured(rec *trial.Record) float64 {
	return float64(rec.LastElection-rec.FirstInitiation) / float64(rec.Delays.Mean())
}

// turnaround is a record's turnaround in units of its T.
func turnaround(rec *trial.Record) float64 {
	return float64(rec.LastElection-rec.FirstInitiation) / float64(rec.T)
}
