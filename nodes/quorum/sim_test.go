package quorum_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	"github.com/electbench/electbench/nodes/check"
	_ "github.com/electbench/electbench/nodes/etcdraft"
	"github.com/electbench/electbench/nodes/quorum"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// The quorum algorithms on the simulator, judged by the checker exactly as
// `electbench run` judges them (WatchQuorum, its events, Finish).

// simRun is one simulated run and the checker's verdict on it.
type simRun struct {
	res *trial.Record
	v   check.Verdict
}

// run runs spec on ids 1..n in a random arrangement drawn from seed. Quorum
// algorithms start all by themselves; when warm is set, process 0 is also
// told to initiate at time 0, so that it wins a first election before any
// election timeout expires.
func run(t testing.TB, spec string, params nodes.Params, n int, lat trial.Latency, seed uint64, deadline time.Duration,
	warm bool, crashes []trial.Fault, faults []trial.Fault) simRun {
	t.Helper()
	return runWith(t, spec, params, n, lat, seed, deadline, warm, crashes, faults, trial.Detector{}, nil)
}

func runWith(t testing.TB, spec string, params nodes.Params, n int, lat trial.Latency, seed uint64, deadline time.Duration,
	warm bool, crashes []trial.Fault, faults []trial.Fault, det trial.Detector, trace io.Writer) simRun {
	t.Helper()
	alg, variant, err := nodes.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	ranks := make([]nodes.Rank, n)
	for i, id := range rand.New(rand.NewPCG(seed, 5)).Perm(n) {
		ranks[i] = nodes.RankOf(uint64(id + 1))
	}
	checker := check.New(nodes.RanksOf(ranks))
	if alg.Quorum != nil {
		if err := checker.WatchQuorum(alg, nodes.Config{Variant: variant, Params: params, N: n, T: lat.Mean()}); err != nil {
			t.Fatal(err)
		}
	}
	var initiators []int
	if !alg.StartsAll || warm {
		initiators = []int{0}
	}
	var events trial.Sink = checker
	var tr *trial.Trace
	if trace != nil {
		tr = trial.NewTrace(trace)
		events = trial.Tee(tr, checker)
	}
	res, err := sim.Run(trial.Config{Algorithm: alg, Variant: variant, Params: params, Ranks: nodes.RanksOf(ranks), Initiators: initiators,
		Latency: lat, Seed: seed, Deadline: deadline, Events: events, Faults: append(slices.Clip(crashes), faults...),
		Detector: det})
	if err != nil {
		t.Fatal(err)
	}
	if tr != nil {
		if err := tr.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	return simRun{res: res, v: checker.Finish(&res.Decisions, res.Quiescent, res.End)}
}

// leaderCrash is when the first crash of a leader happened.
func (tr simRun) leaderCrash() (time.Duration, bool) {
	for _, c := range tr.res.Crashes {
		if c.WasLeader {
			return c.At, true
		}
	}
	return 0, false
}

// sender is one send of a trace.
type sendEvent struct {
	T    int64  `json:"t"`
	Ev   string `json:"ev"`
	From int    `json:"from"`
	Kind string `json:"kind"`
}

// senders lists the processes that sent a message of kind at or after from,
// in a trace written by the simulator.
func senders(t *testing.T, trace []byte, kind string, from time.Duration) []int {
	t.Helper()
	seen := map[int]bool{}
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e sendEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("trace line %q: %v", sc.Text(), err)
		}
		if e.Ev == "send" && e.Kind == kind && time.Duration(e.T) >= from && !seen[e.From] {
			seen[e.From] = true
			out = append(out, e.From)
		}
	}
	return out
}

const T = 5 * time.Millisecond

// jittered is the latency of most simulator tests: uniform in [0.5T, 1.5T].
var jittered = trial.Uniform{Lo: T / 2, Hi: 3 * T / 2}

// ALGORITHMS.md, "zookeeper": "Failure of the leader alerts one process, not
// everyone." Nine processes; once the first leader is established it
// crashes. Even with the harness's perfect detector telling every process
// (10T later), exactly one monitor fires and exactly one process proposes;
// bully, in the same run, has every survivor start an election (the herd).
func TestZookeeperNoHerd(t *testing.T) {
	const n = 9
	crash := []trial.Fault{trial.CrashFault(trial.CurrentLeader, trial.When{Trigger: trial.AtTime, At: 100 * T})}
	for seed := range uint64(20) {
		var trace bytes.Buffer
		tr := runWith(t, "zookeeper", nil, n, jittered, seed, 400*T, false, crash, nil, trial.Detector{}, &trace)
		at, ok := tr.leaderCrash()
		if !ok {
			t.Fatalf("seed %d: the leader did not crash", seed)
		}
		if got := tr.res.TimeoutsByKind()["MONITOR"]; got != 1 {
			t.Errorf("seed %d: %d monitors fired, want exactly one", seed, got)
		}
		if got := senders(t, trace.Bytes(), "NEW_LEADER", at); len(got) != 1 {
			t.Errorf("seed %d: processes %v proposed after the crash, want exactly one", seed, got)
		}
		if !tr.v.Correct || tr.v.Violations > 0 {
			t.Errorf("seed %d: correct %v, violations %v", seed, tr.v.Correct, tr.v.Recorded)
		}
		trace.Reset()
		bully := runWith(t, "bully", nil, n, jittered, seed, 400*T, false, crash, nil, trial.Detector{}, &trace)
		at, _ = bully.leaderCrash()
		// The survivors act: the highest announces at once, the others
		// hold elections (one may already have heard the announcement).
		acted := senders(t, trace.Bytes(), "ELECTION", at)
		for _, p := range senders(t, trace.Bytes(), "COORDINATOR", at) {
			if !slices.Contains(acted, p) {
				acted = append(acted, p)
			}
		}
		if len(acted) < n-2 {
			t.Errorf("seed %d: bully: only %v acted on the crash, want nearly all %d survivors", seed, acted, n-1)
		}
	}
}

// Issue 21: timeouts count the election's timers only. A fault-free
// zookeeper run pings its watches every 4T until it settles — ticks in
// timeouts_by_kind, several per process — while its timeouts stay in the
// order of its election activity (none here: the highest proposes at once).
func TestZookeeperTimeoutsAreElectionTimers(t *testing.T) {
	const n = 64
	r := run(t, "zookeeper", nil, n, trial.Uniform{Lo: time.Millisecond, Hi: 5 * time.Millisecond}, 9, 0, false, nil, nil)
	ticks := r.res.TimeoutsByKind()["WATCH_TICK"]
	if !r.v.Live || ticks < 3*n {
		t.Fatalf("live %v, %d WATCH_TICK; want a live run with the ticks counted by kind", r.v.Live, ticks)
	}
	if r.res.Timeouts > r.res.Messages {
		t.Errorf("timeouts %d beside %d election messages (%v): maintenance ticks counted", r.res.Timeouts, r.res.Messages, r.res.TimeoutsByKind())
	}
	var election int64
	for name, c := range r.res.TimeoutsByKind() {
		if name != "WATCH_TICK" {
			election += c
		}
	}
	if r.res.Timeouts != election {
		t.Errorf("timeouts %d, want the election timers' %d (%v)", r.res.Timeouts, election, r.res.TimeoutsByKind())
	}
}

// Raft's vote rule keeps Leader Completeness (§5.4.1) in every simulated
// run with logs, and without its up-to-date check (the planted bug of
// RegisterRaftWithoutVoteCheck) a server missing committed entries wins:
// the checker, told the drawn indexes through the trace's tee, sees it.
func TestLeaderCompletenessNeedsTheVoteCheck(t *testing.T) {
	quorum.RegisterRaftWithoutVoteCheck()
	lat := trial.Uniform{Lo: T / 2, Hi: 3 * T / 2}
	found := 0
	for seed := range uint64(20) {
		for _, spec := range []string{"raft", quorum.RaftWithoutVoteCheck} {
			var trace bytes.Buffer
			r := runWith(t, spec, nodes.Params{"logs": "10"}, 5, lat, seed+1, 400*T, false, nil, nil, trial.Detector{}, &trace)
			for _, v := range r.v.Recorded {
				if v.Kind != "leader-completeness" {
					continue
				}
				if spec == "raft" {
					t.Fatalf("seed %d: raft broke Leader Completeness: %v", seed+1, v)
				}
				found++
			}
		}
	}
	if found == 0 {
		t.Fatal("raft without its vote check never elected a server missing committed entries in 20 runs")
	}
	t.Logf("%d of 20 runs without the vote check broke Leader Completeness", found)
}
