//go:build unix

package workloads

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/etcdraft"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/livetest"
	_ "github.com/electbench/electbench/nodes/quorum"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/pow"
	"github.com/electbench/electbench/reports"
)

// TestMain lets the test binary be a live node, as the electbench binary
// re-executes itself as `electbench node` (livetest.Main), or measure one
// trial's memory in a fresh process (peakMain).
func TestMain(m *testing.M) {
	livetest.Main()
	peakMain()
	os.Exit(m.Run())
}

// liveRuntime is the live harness as workloads runs it, with this test
// binary as its nodes; change, if given, adjusts its options. Its Last is
// the latest trial's full result.
func liveRuntime(t *testing.T, change ...func(*harness.Options)) *harness.Recorder {
	t.Helper()
	node, env := livetest.Command(t)
	opt := harness.Options{Node: node, Env: env, Log: livetest.Log(t)}
	for _, c := range change {
		c(&opt)
	}
	r, err := harness.New(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &harness.Recorder{R: r}
}

func runLive(t *testing.T, rt Runtime, tr Trial) reports.Row {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	row := RunLiveTrial(ctx, rt, tr, nil)
	if row.Error != "" {
		t.Fatalf("%s n=%d: %s", tr.Algo.Alg.Name, tr.Nodes, row.Error)
	}
	return row
}

// A live row means what a simulated one does: the same columns from the
// same record, verdict and reference figures (row.go), differing only in
// what the network's timing decides. The executor writes each live
// trial's trace before its row, under a header that says it ran live.
func TestRunLiveRows(t *testing.T) {
	s := spec(t, "chang-roberts", "5", "random", "successor-of-max", "10ms", 2)
	var rows []reports.Row
	var trace bytes.Buffer
	err := (&Executor{Live: liveRuntime(t), Trace: &trace}).Execute(context.Background(), asLive(s.Plan()), func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	for i, got := range rows {
		want := RunSim(s.Plan()[i], nil)
		if got.Runtime != "live" || got.TS != 0.01 || got.Error != "" || !got.Correct || !got.Live ||
			got.Messages != 14 || got.MessagesByKind.String() != want.MessagesByKind.String() || got.Bytes <= 0 ||
			got.TheoryMessages != want.TheoryMessages || got.Timeouts != 0 ||
			!got.TurnaroundT.IsSet() || !got.DecidedT.IsSet() || got.Faults != "" || got.Expect != want.Expect {
			t.Errorf("trial %d: live %+v\nsimulated %+v", i, got, want)
		}
	}
	sc := bufio.NewScanner(&trace)
	var headers, sends, recvs int
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, `{"trial":`):
			headers++
			if !strings.HasSuffix(line, `"scenario":"test","runtime":"live"}`) {
				t.Errorf("header %s", line)
			}
		case strings.Contains(line, `"ev":"send"`):
			sends++
		case strings.Contains(line, `"ev":"recv"`):
			recvs++
		}
	}
	if headers != 2 || sends != 28 || recvs != 28 {
		t.Errorf("trace: %d headers, %d sends, %d deliveries", headers, sends, recvs)
	}
}

// An interrupted live run emits no row and no trace for the trial it
// interrupted, and says why it stopped.
func TestRunLiveInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rt := liveRuntime(t, func(o *harness.Options) { o.Observe = func(harness.Info) { cancel() } })
	var trace bytes.Buffer
	err := (&Executor{Live: rt, Trace: &trace}).Execute(ctx, asLive(spec(t, "bully", "5", "random", "lowest", "1ms", 3).Plan()), func(r reports.Row) error {
		t.Errorf("an interrupted trial emitted %+v", r)
		return nil
	})
	if !errors.Is(err, context.Canceled) || trace.Len() != 0 {
		t.Fatalf("interrupted run: %v; trace %q", err, trace.String())
	}
}

// A live trial that ran but cannot be judged faithfully is neither correct
// nor live, whatever its checker thought, and its error column says why; a
// trial that could not run says why too.
func TestLiveFailureRows(t *testing.T) {
	tr := spec(t, "chang-roberts", "4", "random", "lowest", "1ms", 1).Plan()[0]
	// A process crashed at the start never linked, so restarting it fails
	// (scenario files refuse this fault for runtime live; a spec built in
	// Go can still ask for it).
	zero, err := chaos.ParseSelector("0")
	if err != nil {
		t.Fatal(err)
	}
	soon, _ := chaos.ParseDuration("2ms")
	s := *tr.Spec
	s.Faults = []chaos.Fault{{Kind: "crash", Target: zero, For: soon}}
	tr.Spec = &s
	rt := liveRuntime(t)
	row := RunLiveTrial(context.Background(), rt, tr, nil)
	if row.Correct || row.Live || row.Error != `live: cannot restart node 0: it was down from the start and has no links` || row.Messages == 0 || rt.Last == nil {
		t.Errorf("ran: row %+v", row)
	}
	rt = liveRuntime(t, func(o *harness.Options) { o.Node = []string{"/nonexistent/electbench"} })
	row = RunLiveTrial(context.Background(), rt, tr, nil)
	if row.Correct || row.Live || !strings.HasPrefix(row.Error, "infrastructure failure: starting node process") || row.Runtime != "live" || rt.Last != nil {
		t.Errorf("could not run: row %+v", row)
	}
}

// failOnce is a runtime whose first call for the trial of seed `seed` is
// the infrastructure's failure (a stand-in for a Toxiproxy stopped in the
// middle of a run); an attempt run again (trial.MaxReruns) is no new trial.
type failOnce struct {
	rt     Runtime
	seed   uint64
	failed bool
}

func (f *failOnce) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	if cfg.Seed == f.seed && !f.failed {
		f.failed = true
		return nil, fmt.Errorf("live: %w: toxiproxy stopped", trial.ErrInfrastructure)
	}
	return f.rt.Run(ctx, cfg)
}

// A trial that failed for the infrastructure is no result: the run stops
// there with an error naming it, emits no row for it, and a resumed run
// (skipping the rows written) runs exactly that trial and the ones after.
func TestRunLiveStopsAtInfrastructureFailure(t *testing.T) {
	plan := spec(t, "bully", "4", "random", "lowest", "1ms", 3).Plan()
	rt := liveRuntime(t)
	var rows []reports.Row
	emit := func(r reports.Row) error { rows = append(rows, r); return nil }
	err := (&Executor{Live: &failOnce{rt: rt, seed: plan[1].Seed}}).Execute(context.Background(), asLive(plan), emit)
	if !errors.Is(err, trial.ErrInfrastructure) || !strings.Contains(err.Error(), "bully trial 1 on 4 nodes") {
		t.Fatalf("run: %v; want the infrastructure error of trial 1", err)
	}
	if len(rows) != 1 || rows[0].Trial != 0 || rows[0].Error != "" {
		t.Fatalf("rows before the failure: %+v", rows)
	}
	done := map[reports.Key]bool{rows[0].Key(): true}
	var resumed []int
	err = (&Executor{Live: rt, Skip: func(tr Trial) bool { return done[tr.LiveBaseRow().Key()] }}).Execute(context.Background(), asLive(plan), func(r reports.Row) error { resumed = append(resumed, r.Trial); return nil })
	if err != nil || !slices.Equal(resumed, []int{1, 2}) {
		t.Fatalf("resumed run: trials %v, %v; want 1 and 2", resumed, err)
	}
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
	s.RankBy = ""
	// The ring lecture's simulator-only cases: an anonymous ring, and
	// rounds over minted ids.
	s.IDs = IDs{Mode: "anonymous"}
	if err := s.ValidateLive(); err == nil || !strings.Contains(err.Error(), "simulator-only") {
		t.Errorf("--ids anonymous: %v", err)
	}
	ts := spec(t, "time-slice", "4", "random", "lowest", "1ms", 1)
	if err := ts.ValidateLive(); err == nil || !strings.Contains(err.Error(), "--algo time-slice: an algorithm of synchronous rounds") {
		t.Errorf("time-slice live: %v", err)
	}
	s.IDs = IDs{Mode: "random"}
	s.Nodes = []int{129}
	if err := s.ValidateLive(); err == nil || !strings.Contains(err.Error(), "--nodes 129: a live cluster is at most 128 processes") {
		t.Errorf("--nodes %d: %v", s.Nodes[0], err)
	}
	if got := (Trial{Spec: spec(t, "ring", "4", "random", "lowest", "normal(5ms,1ms)", 1), Algo: s.Algos[0], Nodes: 4}).LiveBaseRow(); got.Runtime != "live" || !strings.Contains(got.Latency, "unseeded") {
		t.Errorf("live row %+v", got)
	}
}

// strangerHello connects to addr as a dialer claiming id with a random key
// and the cluster's puzzle, and waits for the node to refuse it.
func strangerHello(t *testing.T, addr string, id nodes.ID) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	show := &pow.Identity{Params: live.IdentityParams(live.DefaultBits), ID: id}
	rand.Read(show.PublicKey[:])
	file, err := pow.Encode(show)
	if err != nil {
		t.Error(err)
		return
	}
	payload := make([]byte, live.ChallengeLen+live.EphemeralLen+live.SignatureLen)
	rand.Read(payload)
	b, err := live.AppendFrame(nil, live.FrameHello, append(payload, file...))
	if err != nil {
		t.Error(err)
		return
	}
	c.Write(b)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if f, err := live.NewFrameReader(c).Next(); err != nil || f.Kind != live.FrameRefuse {
		t.Errorf("the stranger's HELLO: %v, %v; want REFUSE", f.Kind, err)
	}
}

// Anonymous refusals, end to end: while a trial runs, a connection to
// every node claims an id without its key. No node is excluded, the row is
// correct and live, and it counts the four anonymous refused connections.
// (A claim of a roster id is refused the same way: live's
// TestNodeBlamesNobodyForAnUnprovenClaim.)
func TestLiveRowCountsAnonymousRefusals(t *testing.T) {
	s := spec(t, "chang-roberts", "4", "random", "successor-of-max", "5ms", 1)
	rt := liveRuntime(t, func(o *harness.Options) {
		o.Observe = func(i harness.Info) {
			for _, addr := range i.NodeAddrs {
				strangerHello(t, addr, nodes.ID{1, 2, 3, 4})
			}
		}
	})
	row := runLive(t, rt, s.Plan()[0])
	if !row.Correct || !row.Live || row.Messages != 11 {
		t.Errorf("row %+v: the strangers changed the run", row)
	}
	if !row.AnonymousRefused.IsSet() || row.AnonymousRefused.Get() != 4 {
		t.Errorf("anonymous_refused %+v, want 4", row.AnonymousRefused)
	}
	if len(rt.Last.Refused) != 0 {
		t.Errorf("positions %v excluded for connections they never made", rt.Last.Refused)
	}
}

// overrunRuntime is a live runtime whose allowance is 1 ns, so that D is
// the link's latency plus 1 ns and every real message outlasts it, and
// the number of trials it has run on the harness, attempts included.
func overrunRuntime(t *testing.T) (*harness.Recorder, *int) {
	attempts := new(int)
	rt := liveRuntime(t, func(o *harness.Options) {
		o.Allowance = time.Nanosecond
		o.Observe = func(harness.Info) { *attempts++ }
	})
	return rt, attempts
}

// A bounded-delay trial that the host took outside its model and that its
// event budget then stopped (a storm of elections: multicast at N = 128
// went past a million messages in flight) is run again as any other such
// attempt: whether it is depends on its delays, never on how it ended.
func TestLiveRerunsStoppedOutsideTheModel(t *testing.T) {
	rt, attempts := overrunRuntime(t)
	s := spec(t, "bully", "4", "ascending", "lowest", "5ms", 1)
	s.Budget.MaxEvents = 6
	var rows []reports.Row
	err := (&Executor{Live: rt}).Execute(context.Background(), asLive(s.Plan()), func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil || len(rows) != 1 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	if r := rows[0]; r.Budget == "" || r.Reruns != reports.Some(int64(trial.MaxReruns)) || !r.Overruns.IsSet() || r.Overruns.Get() == 0 {
		t.Errorf("bully: budget %q, reruns %+v, overruns %+v; want stopped by its budget, %d reruns and overruns", r.Budget, r.Reruns, r.Overruns, trial.MaxReruns)
	}
	if *attempts != 1+trial.MaxReruns {
		t.Errorf("%d attempts ran on the harness, want %d", *attempts, 1+trial.MaxReruns)
	}
}

// A live host that delays a message past the bound D its algorithm was
// given takes a bounded-delay algorithm outside its model: such an attempt
// is run again, up to trial.MaxReruns times, and only the attempt kept reaches
// the row and the trace. Here the allowance is 1 ns, so D is the link's
// latency plus 1 ns and every real message outlasts it: bully runs
// 1+trial.MaxReruns attempts and keeps the last, whatever its verdict; Chang–
// Roberts, whose safety needs no bound, counts its overruns and is never
// run again.
func TestLiveRerunsOutsideTheModel(t *testing.T) {
	rt, attempts := overrunRuntime(t)
	s := spec(t, "bully,chang-roberts", "4", "ascending", "lowest", "5ms", 1)
	s.Expect.Safety, s.Expect.Correct = true, true
	var rows []reports.Row
	var trace bytes.Buffer
	err := (&Executor{Live: rt, Trace: &trace}).Execute(context.Background(), asLive(s.Plan()), func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	bully, cr := rows[0], rows[1]
	if bully.Algorithm != "bully" || bully.Reruns != reports.Some(int64(trial.MaxReruns)) || !bully.Overruns.IsSet() || bully.Overruns.Get() == 0 {
		t.Errorf("bully: reruns %+v, overruns %+v; want %d reruns and overruns", bully.Reruns, bully.Overruns, trial.MaxReruns)
	}
	if cr.Algorithm != "chang-roberts" || cr.Reruns != reports.Some(int64(0)) || !cr.Overruns.IsSet() || cr.Overruns.Get() == 0 || !cr.Correct {
		t.Errorf("chang-roberts: reruns %+v, overruns %+v, correct %v; want none run again, overruns counted", cr.Reruns, cr.Overruns, cr.Correct)
	}
	if *attempts != 1+trial.MaxReruns+1 {
		t.Errorf("%d trials ran on the harness, want %d", *attempts, 1+trial.MaxReruns+1)
	}
	// Bully's kept attempt measures the host: its expectations are not
	// judged, whatever they would have said; Chang–Roberts's are.
	if !bully.Unjudged() || !strings.HasSuffix(bully.Expect, "pass") && !strings.Contains(bully.Expect, "fail: ") {
		t.Errorf("bully: expect %q, want it unjudged with what it would have said", bully.Expect)
	}
	if cr.Expect != "pass" {
		t.Errorf("chang-roberts: expect %q, want pass", cr.Expect)
	}
	// The trace holds each trial once: the attempt kept.
	var headers, sends int
	sc := bufio.NewScanner(&trace)
	for sc.Scan() {
		switch line := sc.Text(); {
		case strings.HasPrefix(line, `{"trial":`):
			headers++
		case strings.Contains(line, `"ev":"send"`):
			sends++
		}
	}
	if headers != 2 || int64(sends) != bully.Messages+cr.Messages {
		t.Errorf("trace: %d headers, %d sends; want 2 and %d", headers, sends, bully.Messages+cr.Messages)
	}
}

// A live process's first start is at the run's start, as in the
// simulator: chubby stands for election after its randomized wait (5T to
// 25T) rather than first waiting out a lease and its margin (50T), which
// it owes only after a restart. Here T, the live unit, is 10 ms: a leader
// known by a majority within 0.4 s, not after 0.5 s. A host that turns
// that round later (0.485 s beside four busy loops) still had a process
// stand before 50T, which no process waiting out a lease does at any
// load, or held a message past 25T, the longest wait: either is the
// host's, said and not failed.
func TestLiveChubbyFirstStartIsNoRestart(t *testing.T) {
	const unit = 10 * time.Millisecond
	rt := liveRuntime(t)
	var rows []reports.Row
	var trace bytes.Buffer
	err := (&Executor{Live: rt, Trace: &trace}).Execute(context.Background(), asLive(spec(t, "chubby", "3", "random", "lowest", "5ms", 2).Plan()), func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	})
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows: %v", len(rows), err)
	}
	trials := tracedTrials(t, trace.String())
	for i, r := range rows {
		if r.Error != "" || !r.Correct || !r.TurnaroundS.IsSet() {
			t.Errorf("chubby trial %d: turnaround %v s, correct %v, error %q; want a leader", r.Trial, r.TurnaroundS, r.Correct, r.Error)
			continue
		}
		if r.TurnaroundS.Get() < 0.4 {
			continue
		}
		stood, longest := firstSend(trials[i]), longestDelay(trials[i])
		if stood >= 50*unit && longest <= 25*unit {
			t.Errorf("chubby trial %d: turnaround %v s, the first message sent at %v, the longest delay %v; want a leader within 0.4 s", r.Trial, r.TurnaroundS, stood, longest)
			continue
		}
		t.Logf("chubby trial %d: turnaround %v s, past 0.4 s, but the first message was sent at %v and the longest delay was %v: no lease waited out, the lateness is the host's", r.Trial, r.TurnaroundS, stood, longest)
	}
}

// RunTrial drives the live harness as it does the simulator: one call, a
// live row (with its reruns counted) built from the record and verdict it
// returns, the same election as the planned trial's.
func TestRunTrialLive(t *testing.T) {
	tr := spec(t, "chang-roberts", "4", "random", "lowest", "2ms", 1).Plan()[0]
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	res, err := RunTrial(ctx, liveRuntime(t), tr.config(tr.Spec.IDs))
	if err != nil {
		t.Fatal(err)
	}
	row := res.Row
	if row.Runtime != "live" || !row.Reruns.IsSet() || row.Error != "" || res.Record == nil {
		t.Fatalf("row %+v, record %v", row, res.Record)
	}
	if !res.Verdict.Correct || !res.Verdict.Live || row.Correct != res.Verdict.Correct || row.Messages != res.Record.Messages {
		t.Errorf("verdict %+v, row correct %v messages %d, record messages %d", res.Verdict, row.Correct, row.Messages, res.Record.Messages)
	}
	if sim := RunSim(tr, nil); row.Messages != sim.Messages {
		t.Errorf("live chang-roberts sent %d messages, the simulator %d", row.Messages, sim.Messages)
	}
}

// runLiveScenario runs a live scenario written as YAML (name names it in
// errors) to its rows, through the executor, in at most five minutes.
func runLiveScenario(t *testing.T, name, yaml string) []reports.Row {
	t.Helper()
	return runLiveScenarioTraced(t, name, yaml, nil)
}

// runLiveScenarioTraced is runLiveScenario writing the trials' trace to
// trace, when it is not nil.
func runLiveScenarioTraced(t *testing.T, name, yaml string, trace io.Writer) []reports.Row {
	t.Helper()
	scs, err := chaos.Parse(name, []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := FromScenario(scs[0])
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var rows []reports.Row
	if err := (&Executor{Live: liveRuntime(t), Trace: trace}).Execute(ctx, asLive(spec.Plan()), func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// traced is one event of a trace, as trial.Trace writes it: the fields
// the live tests read to measure the host in the trial they judge.
type traced struct {
	T    time.Duration `json:"t"`
	Ev   string        `json:"ev"`
	ID   int64         `json:"id"`
	From int           `json:"from"`
	To   int           `json:"to"`
	Kind string        `json:"kind"`
	What string        `json:"what"`
}

// tracedTrials reads a trace into each trial's events, in the trials'
// order (traceByTrial's), headers left out; a trace without headers (one
// trial's, as RunLiveTrial writes it) is that trial's.
func tracedTrials(t *testing.T, trace string) [][]traced {
	t.Helper()
	parts := []string{trace}
	if strings.HasPrefix(trace, `{"trial":`) {
		parts = traceByTrial(t, trace)
	}
	var trials [][]traced
	for _, part := range parts {
		var evs []traced
		for line := range strings.Lines(part) {
			if strings.HasPrefix(line, `{"trial":`) {
				continue
			}
			var e traced
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("trace line %q: %v", line, err)
			}
			evs = append(evs, e)
		}
		trials = append(trials, evs)
	}
	return trials
}

// longestDelay is the longest time a trial's delivered message was in
// flight: its delivery time less its send time.
func longestDelay(evs []traced) time.Duration {
	sent := map[int64]time.Duration{}
	var longest time.Duration
	for _, e := range evs {
		switch e.Ev {
		case "send":
			sent[e.ID] = e.T
		case "recv":
			if s, ok := sent[e.ID]; ok {
				longest = max(longest, e.T-s)
			}
		}
	}
	return longest
}

// firstSend is when a trial's first message was sent, from its start.
func firstSend(evs []traced) time.Duration {
	for _, e := range evs {
		if e.Ev == "send" {
			return e.T - evs[0].T
		}
	}
	return 1 << 62
}
