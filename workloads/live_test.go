//go:build unix

package workloads

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	_ "github.com/electbench/electbench/nodes/quorum"
	"github.com/electbench/electbench/nodes/trial"
)

// TestMain lets the test binary be a live node, as the electbench binary
// re-executes itself as `electbench node`: the harness starts it with
// ELECTBENCH_LIVE_NODE=1. With ELECTBENCH_LIVE_HARNESS set it is a harness
// instead (TestLiveInterruptedHarness).
func TestMain(m *testing.M) {
	if os.Getenv("ELECTBENCH_LIVE_NODE") == "1" {
		os.Exit(nodeMain(os.Args[1:]))
	}
	if url := os.Getenv("ELECTBENCH_LIVE_HARNESS"); url != "" {
		os.Exit(harnessMain(url))
	}
	os.Exit(m.Run())
}

// nodeMain is `electbench node` for this test binary: it parses the flags
// the harness passes (--identity-dir, --bits, --forge) and runs the node.
func nodeMain(args []string) int {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	c := live.NodeConfig{Bits: live.DefaultBits}
	fs.StringVar(&c.IdentityDir, "identity-dir", c.IdentityDir, "")
	fs.IntVar(&c.Bits, "bits", c.Bits, "")
	fs.StringVar(&c.Forge, "forge", c.Forge, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := live.NodeMain(context.Background(), c, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	return 0
}

// syncBuffer collects the nodes' diagnostics for a failing test's log.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// nodeCommand runs this test binary as a node.
func nodeCommand(t testing.TB) ([]string, []string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}, []string{"ELECTBENCH_LIVE_NODE=1"}
}

func liveOptions(t *testing.T) LiveOptions {
	t.Helper()
	node, env := nodeCommand(t)
	log := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("node diagnostics:\n%s", log.String())
		}
	})
	return LiveOptions{Node: node, Env: env, Log: log}
}

// runner starts a runner for the test, closed at its end.
func runner(t *testing.T, opt LiveOptions) *LiveRunner {
	t.Helper()
	r, err := NewLiveRunner(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func runLive(t *testing.T, r *LiveRunner, tr Trial) *LiveResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res := r.Run(ctx, tr)
	if res.Row.Error != "" {
		t.Fatalf("%s n=%d: %s", tr.Algo.Alg.Name, tr.Nodes, res.Row.Error)
	}
	return res
}

// leaderPos is the position of the process a row names as leader.
func leaderPos(t *testing.T, ranks []nodes.Rank, leader string) int {
	t.Helper()
	r, err := nodes.ParseRank(leader)
	if err != nil {
		t.Fatalf("leader %q: %v", leader, err)
	}
	return slices.Index(ranks, r)
}

// checkAgainstSim pins a fault-free live run to the simulator's reference
// run of the same trial: the same messages of every kind, the same leader
// (by position: live nodes mint their own ids, placed in the arrangement's
// order) and every message delivered. It returns how far apart the
// turnarounds are, as a fraction of the simulator's.
func checkAgainstSim(t *testing.T, res *LiveResult, tr Trial) float64 {
	t.Helper()
	want := RunTrial(tr, nil)
	got := res.Row
	simRanks := tr.Spec.IDs.Ranks(tr.Nodes, tr.Seed)
	if got.Messages != want.Messages || got.MessagesByKind.String() != want.MessagesByKind.String() || got.Bytes <= 0 {
		t.Errorf("n=%d: live sent %d (%s), the simulator %d (%s)", tr.Nodes, got.Messages, got.MessagesByKind, want.Messages, want.MessagesByKind)
	}
	if !got.Correct || !got.Live || got.SafetyViolations != 0 || leaderPos(t, res.Ranks, got.Leader) != leaderPos(t, simRanks, want.Leader) {
		t.Errorf("n=%d: live %+v, simulator leader %s", tr.Nodes, got, want.Leader)
	}
	if len(res.Lost) != 0 || len(res.Dropped) != 0 {
		t.Errorf("n=%d: lost %v, dropped %v", tr.Nodes, res.Lost, res.Dropped)
	}
	if !got.TurnaroundT.Set {
		t.Fatalf("n=%d: no turnaround: %+v", tr.Nodes, got)
	}
	d := math.Abs(got.TurnaroundT.V-want.TurnaroundT.V) / want.TurnaroundT.V
	t.Logf("n=%d: %d messages, turnaround %.3f T live, %.0f T simulated (%.1f%% apart)", tr.Nodes, got.Messages, got.TurnaroundT.V, want.TurnaroundT.V, 100*d)
	return d
}

// The issue: with a 10 ms latency toxic on every link and no faults,
// chang-roberts with one initiator (the successor of the maximum, the worst
// case) sends exactly 3N−1 messages, and its turnaround_t is within 15% of
// the simulator's (ALGORITHMS.md: 3N−1 T).
func TestLiveChangRobertsMatchesSim(t *testing.T) {
	r := runner(t, liveOptions(t))
	checkChangRoberts(t, r)
}

// Wall-clock time on a shared host is noisy: a process that other load keeps
// off the CPU for a few milliseconds at one of 47 hops moves the turnaround
// by as much. So each size gets up to three trials (with their own seeds),
// every one of which must be exact in its counts, and one of which must come
// within 15%.
func checkChangRoberts(t *testing.T, r *LiveRunner) {
	for _, n := range []int{5, 16} {
		var apart []float64
		for _, tr := range spec(t, "chang-roberts", strconv.Itoa(n), "random", "successor-of-max", "10ms", 3).Plan() {
			res := runLive(t, r, tr)
			if got := res.Row.Messages; got != int64(3*n-1) || res.Row.TheoryMessages.V != got {
				t.Errorf("n=%d: %d messages, want 3N−1 = %d", n, got, 3*n-1)
			}
			if res.Row.Runtime != "live" || res.Row.TS != 0.01 {
				t.Errorf("row %+v", res.Row)
			}
			// Each node's own count of what it sent agrees with the
			// harness's reading of its step lines (reconciled into the
			// row's error column), and nobody refused anybody.
			for p, st := range res.Stats {
				if st == nil || st.Refused != 0 {
					t.Fatalf("node %d: stats %+v", p, st)
				}
			}
			if apart = append(apart, checkAgainstSim(t, res, tr)); apart[len(apart)-1] <= 0.15 {
				break
			}
		}
		if slices.Min(apart) > 0.15 {
			t.Errorf("n=%d: no live turnaround within 15%% of the simulator's: %v apart", n, apart)
		}
	}
}

// Every algorithm elects the right leader live, at N = 8: the highest
// process for the algorithms that terminate; a leader known by a majority,
// agreed by all, for the quorum ones (which run to the deadline).
//
// Timers written in units of T ("T1 = 2T") race real processing delays, on a
// loaded host by milliseconds: the algorithms that terminate get a 20 ms
// processing allowance on top of T here, the quorum ones (whose timeouts
// are tens of T already) the default, and two seconds to elect.
func TestLiveEveryAlgorithm(t *testing.T) {
	opt := liveOptions(t)
	quorum := runner(t, opt)
	opt.Allowance = 20 * time.Millisecond
	terminating := runner(t, opt)
	for _, a := range nodes.Algorithms() {
		s := spec(t, a.Name, "8", "random", "lowest", "5ms", 1)
		r := terminating
		if a.Quorum != nil {
			s.Deadline, r = 2*time.Second, quorum
		}
		tr := s.Plan()[0]
		res := runLive(t, r, tr)
		row := res.Row
		if !row.Correct || !row.Live || row.SafetyViolations != 0 {
			t.Errorf("%s: %+v", a.Name, row)
			continue
		}
		if a.Quorum == nil {
			if p := leaderPos(t, res.Ranks, row.Leader); res.Ranks[p] != slices.MaxFunc(res.Ranks, nodes.Rank.Compare) {
				t.Errorf("%s: elected position %d, not the highest", a.Name, p)
			}
		}
		t.Logf("%s: %d messages (%s), turnaround %.2f T", a.Name, row.Messages, row.MessagesByKind, row.TurnaroundT.V)
	}
}

// A node presenting a forged identity is refused — logged, counted, and
// none of its messages reaches an algorithm — and the election completes
// among the honest nodes.
func TestLiveForgedIdentity(t *testing.T) {
	opt := liveOptions(t)
	for _, tc := range []struct{ algo, mode string }{{"bully", "forged-id"}, {"chang-roberts", "stolen"}} {
		opt.Forge = map[int]string{2: tc.mode}
		r := runner(t, opt)
		s := spec(t, tc.algo, "5", "random", "lowest", "5ms", 1)
		res := runLive(t, r, s.Plan()[0])
		if len(res.Refused) != 1 {
			t.Fatalf("%s: refused %v, want the forged node", tc.mode, res.Refused)
		}
		bad := res.Refused[0]
		if res.DeliveredFrom[bad] != 0 {
			t.Errorf("%s: %d messages of the refused node reached an algorithm", tc.mode, res.DeliveredFrom[bad])
		}
		// Every honest node refused it twice: as acceptor of its dial and as
		// dialer of its listener.
		if res.Refusals != 2*4 {
			t.Errorf("%s: %d refusals counted, want 8", tc.mode, res.Refusals)
		}
		var honest nodes.Rank
		for p, rk := range res.Ranks {
			if p != bad && honest.Less(rk) {
				honest = rk
			}
		}
		if row := res.Row; !row.Correct || !row.Live || row.Leader != honest.String() {
			t.Errorf("%s (%s): %+v; want the highest honest node %s", tc.mode, tc.algo, row, honest)
		}
		if log := opt.Log.(*syncBuffer).String(); !strings.Contains(log, "refused the peer") {
			t.Errorf("%s: no refusal logged", tc.mode)
		}
	}
}

// Faults produce what the simulator predicts.
func TestLiveFaults(t *testing.T) {
	opt := liveOptions(t)
	r := runner(t, opt)

	t.Run("kill the would-be leader mid-election", func(t *testing.T) {
		s := withCrash(t, spec(t, "bully", "5", "random", "lowest", "5ms", 1), "would-be-leader@after-messages:2")
		tr := s.Plan()[0]
		res := runLive(t, r, tr)
		want := RunTrial(tr, nil)
		if len(res.Crashes) != 1 || !res.Crashes[0].WasLeader {
			t.Fatalf("crashes %+v", res.Crashes)
		}
		dead := res.Crashes[0].Pos
		if res.Ranks[dead] != slices.MaxFunc(res.Ranks, nodes.Rank.Compare) {
			t.Errorf("crashed position %d is not the would-be leader", dead)
		}
		// The simulator: a new leader, the highest survivor, and every
		// survivor knows it.
		simRanks := s.IDs.Ranks(tr.Nodes, tr.Seed)
		row := res.Row
		if !want.Correct || !row.Correct || !row.Live || row.SafetyViolations != 0 ||
			leaderPos(t, res.Ranks, row.Leader) != leaderPos(t, simRanks, want.Leader) || !row.FailoverS.Set {
			t.Errorf("live %+v; simulator %+v", row, want)
		}
	})

	t.Run("pause a node beyond the detector's timeout", func(t *testing.T) {
		s := spec(t, "bully", "5", "random", "lowest", "5ms", 1)
		var err error
		if s.Detector, err = trial.ParseDetector("heartbeat(2T,8T)", s.Latency.Mean()); err != nil {
			t.Fatal(err)
		}
		tr := s.Plan()[0]
		ranks := s.IDs.Ranks(tr.Nodes, tr.Seed)
		top := slices.Index(ranks, slices.MaxFunc(ranks, nodes.Rank.Compare))
		popt := opt
		popt.Faults = []LiveFault{{Kind: "pause", Procs: []int{top}, At: 40 * 5 * time.Millisecond, For: 40 * 5 * time.Millisecond}}
		res := runLive(t, runner(t, popt), tr)
		// A false suspicion: the paused leader is suspected though it
		// never crashed, and the others elect the next one while it lives
		// (the simulator's heartbeat detector does the same to a process
		// that falls silent for longer than τ).
		suspected := slices.ContainsFunc(res.Suspicions, func(s LiveSuspicion) bool { return s.Of == top && s.By != top })
		if !suspected || len(res.Crashes) != 0 {
			t.Fatalf("suspicions %+v, crashes %+v", res.Suspicions, res.Crashes)
		}
		if row := res.Row; row.SafetyViolations == 0 || !strings.Contains(row.Violation, "wrong-leader") {
			t.Errorf("no violation flagged: %+v", row)
		}
		if res.Row.MessagesByKind.Get("PING") == 0 || res.Row.MessagesByKind.Get("PING_ACK") == 0 {
			t.Errorf("heartbeats not counted: %s", res.Row.MessagesByKind)
		}
	})

	for _, silent := range []bool{true, false} {
		t.Run(fmt.Sprintf("halves partition under bully (silent %v)", silent), func(t *testing.T) {
			s := spec(t, "bully", "6", "random", "all", "5ms", 1)
			popt := opt
			popt.Faults = []LiveFault{{Kind: "partition", Groups: Halves(6), Silent: silent}}
			res := runLive(t, runner(t, popt), s.Plan()[0])
			// Each half elects its own highest: two leaders, flagged.
			for _, half := range Halves(6) {
				var top nodes.Rank
				for _, p := range half {
					top = maxBy(top, res.Ranks[p], cmpRank)
				}
				for _, p := range half {
					if d := res.Decisions[p]; d.Count == 0 || d.Leader != top {
						t.Errorf("position %d decided %+v, want its half's highest %s", p, d, top)
					}
				}
			}
			if row := res.Row; row.SafetyViolations == 0 || row.Correct {
				t.Errorf("two leaders not flagged: %+v", row)
			}
		})
	}

	t.Run("restart keeps the identity", func(t *testing.T) {
		s := spec(t, "bully", "4", "ascending", "lowest", "5ms", 1)
		ropt := opt
		ropt.Faults = []LiveFault{{Kind: "restart", Procs: []int{0}, At: 20 * 5 * time.Millisecond, For: 10 * 5 * time.Millisecond}}
		var info LiveInfo
		ropt.Observe = func(i LiveInfo) { info = i }
		res := runLive(t, runner(t, ropt), s.Plan()[0])
		if len(res.Crashes) != 1 || res.Crashes[0].Pos != 0 {
			t.Fatalf("crashes %+v", res.Crashes)
		}
		// The restarted node answered stop with its stats: it was linked
		// and started again under the same identity (a new one would have
		// been refused as "not in this run").
		if res.Stats[0] == nil || res.Stats[0].Steps == 0 || res.Refusals != 0 {
			t.Fatalf("restarted node: stats %+v, refusals %d", res.Stats[0], res.Refusals)
		}
		if len(info.PIDs) != 4 {
			t.Fatalf("info %+v", info)
		}
		// Back, it is a fresh machine that knows no leader, as in the
		// simulator: the checker counts it among those that must decide,
		// and bully's Start does not teach it one.
		if res.Decisions[0].Count != 0 || !strings.Contains(res.Row.Violation, "undecided") {
			t.Errorf("restarted: decision %+v, row %+v", res.Decisions[0], res.Row)
		}
	})
}

func cmpRank(a, b nodes.Rank) int { return a.Compare(b) }

func maxBy[T any](a, b T, cmp func(T, T) int) T {
	if cmp(a, b) >= 0 {
		return a
	}
	return b
}

// A live spec refuses what Toxiproxy cannot do, with the flag at fault.
func TestValidateLive(t *testing.T) {
	for lat, want := range map[string]string{"500us": "at least 1ms", "1500us": "whole milliseconds"} {
		s := spec(t, "ring", "4", "random", "lowest", lat, 1)
		if err := s.ValidateLive(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--latency %s: %v; want %q", lat, err, want)
		}
	}
	s := spec(t, "ring", "4", "random", "lowest", "1ms", 1)
	if err := s.ValidateLive(); err != nil {
		t.Fatal(err)
	}
	s.RankBy = RankByEpoch
	if err := s.ValidateLive(); err == nil || !strings.Contains(err.Error(), "--rank epoch") {
		t.Errorf("--rank epoch: %v", err)
	}
	if got := (Trial{Spec: spec(t, "ring", "4", "random", "lowest", "normal(5ms,1ms)", 1), Algo: s.Algos[0], Nodes: 4}).LiveBaseRow(); got.Runtime != "live" || !strings.Contains(got.Latency, "unseeded") {
		t.Errorf("live row %+v", got)
	}
}
