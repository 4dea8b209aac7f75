package workloads

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/reports"
)

// Options control how trials are executed, never what they compute: rows are
// the same whatever the parallelism.
type Options struct {
	Parallel int                // trials run at once; 0 means one per core
	Skip     func(t Trial) bool // trials already done (resume): not run, not emitted
	// Trace, when set, receives every trial's event trace in plan order,
	// each preceded by a {"trial":...} header line.
	Trace io.Writer
}

// Run executes trials on the simulator and calls emit with each row in plan
// order, as soon as every earlier trial has been emitted. It stops early when
// ctx is cancelled (the rows already emitted are complete; rerun with resume
// for the rest) or when emit fails, and returns why. A trial of a live spec
// (Spec.Runtime "live") is refused before anything runs: RunLive runs those,
// and a simulated row must never pass for a live one.
func Run(ctx context.Context, trials []Trial, opt Options, emit func(reports.Row) error) error {
	for _, t := range trials {
		if t.Spec != nil && t.Spec.Runtime == "live" {
			return fmt.Errorf("trial %d (%s, %s N=%d): its scenario runs live: use RunLive", t.Index, t.Spec.Scenario, t.Algo.Alg.Name, t.Nodes)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := opt.Parallel
	if p <= 0 {
		p = runtime.GOMAXPROCS(0)
	}
	type result struct {
		index int
		row   *reports.Row // nil: skipped
		trace []byte
	}
	jobs := make(chan int)
	results := make(chan result, p)
	var wg sync.WaitGroup
	for range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if opt.Trace == nil {
					row := RunTrial(trials[i], nil)
					results <- result{index: i, row: &row}
					continue
				}
				var buf bytes.Buffer
				row := RunTrial(trials[i], &buf)
				results <- result{index: i, row: &row, trace: buf.Bytes()}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i, t := range trials {
			if opt.Skip != nil && opt.Skip(t) {
				select {
				case results <- result{index: i}:
				case <-ctx.Done():
					return
				}
				continue
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		// The feeder may still send a skip result; wait for it to stop too.
		close(results)
	}()

	pending := map[int]result{}
	next := 0
	var emitErr error
	for r := range results {
		pending[r.index] = r
		for emitErr == nil {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if r.row == nil {
				continue
			}
			if opt.Trace != nil {
				if err := writeTrace(opt.Trace, trials[r.index], r.trace); err != nil {
					emitErr = err
					break
				}
			}
			if err := emit(*r.row); err != nil {
				emitErr = err
			}
		}
		if emitErr != nil {
			cancel()
		}
	}
	if emitErr != nil {
		return emitErr
	}
	if next < len(trials) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("runner: %d of %d trials finished", next, len(trials))
	}
	return nil
}

func writeTrace(w io.Writer, t Trial, trace []byte) error {
	if _, err := fmt.Fprintf(w, "{\"trial\":%d,\"algorithm\":%q,\"variant\":%q,\"nodes\":%d,\"seed\":%d,\"scenario\":%q}\n",
		t.Trial, t.Algo.Alg.Name, t.Algo.Variant, t.Nodes, t.Seed, t.Spec.Scenario); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	if _, err := w.Write(trace); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

// BaseRow is the trial's row before it runs: the columns that identify it
// (reports.Row.Key), which --resume matches against earlier results.
func (t Trial) BaseRow() reports.Row {
	s := t.Spec
	row := reports.Row{
		Algorithm: t.Algo.Alg.Name, Variant: t.Algo.Variant, Runtime: "sim", Scenario: s.Scenario,
		Nodes: t.Nodes, Arrangement: s.IDs.String() + s.RankBy.suffix(), Initiators: s.Initiators.String(),
		Trial: t.Trial, Seed: t.Seed, Latency: s.Latency.String(), TS: s.Latency.Mean().Seconds(),
	}
	if t.Algo.Alg.StartsAll {
		row.Initiators = "all"
	}
	return row
}

// RunTrial runs one trial on the simulator and returns its row. It never
// panics: an algorithm that panics yields a row whose error column says so.
func RunTrial(t Trial, trace io.Writer) (row reports.Row) {
	s := t.Spec
	a := t.Algo
	row = t.BaseRow()
	defer func() {
		if r := recover(); r != nil {
			row.Error = oneLine(fmt.Sprintf("panic: %v", r))
			row.Correct, row.Live = false, false
		}
	}()
	ranks := s.RankBy.apply(s.IDs.Ranks(t.Nodes, t.Seed), t.Seed)
	var initiators, crashTargets []int
	if a.Alg.StartsAll {
		crashTargets = allPositions(t.Nodes)
	} else {
		initiators = s.Initiators.Positions(ranks, t.Seed)
		crashTargets = initiators
	}
	crashes, err := resolveCrashes(s.Crashes, ranks, crashTargets, t.Seed, s.Latency.Mean())
	if err != nil {
		row.Error = oneLine(err.Error())
		return row
	}
	checker := NewChecker(ranks)
	alg := a.Alg
	if alg.Quorum != nil {
		if alg, err = checker.WatchQuorum(alg, nodes.Config{Variant: a.Variant, Params: a.Params, N: t.Nodes, T: s.Latency.Mean()}); err != nil {
			row.Error = oneLine(err.Error())
			return row
		}
	}
	res, err := sim.Run(sim.Config{
		Algorithm: alg, Variant: a.Variant, Params: a.Params,
		Ranks: ranks, Initiators: initiators, Latency: s.Latency,
		Seed: t.Seed, Deadline: s.Deadline, Trace: trace, Observer: checker,
		Crashes: crashes, Detector: s.Detector, Faults: s.simFaults(s.Latency.Mean()),
	})
	if err != nil {
		row.Error = oneLine(err.Error())
		if res == nil {
			return row
		}
	}
	fillCounts(&row, res)
	v := checker.Finish(res.Decisions, res.Quiescent, res.End)
	row.Correct, row.Live, row.Leader = v.Correct, v.Live, v.Leader
	row.SafetyViolations = v.Violations
	if len(v.Recorded) > 0 {
		row.Violation = oneLine(v.Recorded[0].String())
	}
	start := res.FirstInitiation
	if res.LastElection >= 0 && start >= 0 {
		row.TurnaroundS, row.TurnaroundT = inUnits(res.LastElection-start, res.T)
	}
	if v.Leader != "" && start >= 0 {
		row.DecidedS, row.DecidedT = inUnits(v.DecidedAt-start, res.T)
	}
	fillFailover(&row, res, v)
	fillQuorum(&row, res, v)
	row.Faults = faultSchedule(res.Faults)
	var faultFree nodes.Theory // the figure a scenario's messages expectation scales
	if a.Alg.Theory != nil && a.Alg.HasDefaultParams(a.Params, res.T) {
		in := nodes.TheoryInput{Variant: a.Variant, N: t.Nodes, Ranks: ranks, Initiators: initiators, Params: a.Params}
		faultFree = a.Alg.Theory(in)
		in.Faulty = len(s.Faults) > 0 || len(s.LinkLatency) > 0
		for _, c := range crashes {
			if c.When == sim.AtStart {
				in.Crashed = append(in.Crashed, c.Pos)
			} else {
				in.Faulty = true
			}
		}
		if !res.Detector.IsDefault(res.T) {
			in.Faulty = true
		}
		th := a.Alg.Theory(in)
		if th.Messages > 0 {
			row.TheoryMessages = reports.Some(th.Messages)
		}
		if th.Bound > 0 {
			row.TheoryBound = reports.Some(th.Bound)
		}
	}
	row.Expect = checkTrial(s.Expect, &row, faultFree)
	return row
}

// fillFailover measures the first crash of a leader: detection (crash →
// first suspicion) and failover (crash → every live process knows the new
// leader), when the run recovered a correct leader.
func fillFailover(row *reports.Row, res *sim.Result, v Verdict) {
	for _, c := range res.Crashes {
		if !c.WasLeader {
			continue
		}
		if c.FirstSuspicion >= 0 {
			row.DetectS = reports.Some((c.FirstSuspicion - c.At).Seconds())
		}
		if v.Correct && v.DecidedAt >= c.At {
			row.FailoverS, row.FailoverT = inUnits(v.DecidedAt-c.At, res.T)
		}
		return
	}
}

func allPositions(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func fillCounts(row *reports.Row, res *sim.Result) {
	row.Messages = res.Messages
	row.MessagesByKind = reports.CountsFromMap(res.MessagesByKind())
	row.Bytes = res.Bytes
	row.Timeouts = res.Timeouts
	row.TimeoutsByKind = reports.CountsFromMap(res.TimeoutsByKind())
	row.Events = res.Events
}

// inUnits returns d in seconds and in units of T. Under the reference model
// both d and T are whole nanoseconds and d is a whole multiple of T, so the
// ratio is an exact integer.
func inUnits(d, t time.Duration) (reports.Opt[float64], reports.Opt[float64]) {
	return reports.Some(d.Seconds()), reports.Some(float64(d) / float64(t))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
