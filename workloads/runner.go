package workloads

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
	// Processed, when set, holds the events the running simulated trials
	// have processed so far (trial.Config.Processed): progress within
	// trials, for an ETA.
	Processed *atomic.Int64
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
		trace *spool       // with opt.Trace: the trial's trace, on disk
		err   error        // the trace could not be spooled, or ctx's: the trial was interrupted
	}
	jobs := make(chan int)
	results := make(chan result, p)
	var wg sync.WaitGroup
	for range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				var sp *spool
				var w io.Writer
				if opt.Trace != nil {
					var err error
					if sp, err = newSpool(); err != nil {
						results <- result{index: i, err: err}
						continue
					}
					w = sp
				}
				row, _ := trials[i].run(ctx, Sim, false, w, opt.Processed)
				if err := ctx.Err(); err != nil {
					// An interrupted trial's row is not a result: it
					// stops the rows here, and --resume runs it again.
					sp.discard()
					results <- result{index: i, err: err}
					continue
				}
				results <- result{index: i, row: &row, trace: sp}
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
			if r.err != nil {
				emitErr = r.err
				break
			}
			if r.row == nil {
				continue
			}
			if opt.Trace != nil {
				err := writeTrace(opt.Trace, trials[r.index], "", r.trace)
				r.trace.discard()
				if err != nil {
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
	for _, r := range pending { // left by an emit error: not written
		r.trace.discard()
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

// writeTrace writes one trial's trace, after its header line; the header
// of a live trial says so (runtime), a simulated one's does not.
func writeTrace(w io.Writer, t Trial, runtime string, trace *spool) error {
	var rt string
	if runtime != "" {
		rt = fmt.Sprintf(",\"runtime\":%q", runtime)
	}
	if _, err := fmt.Fprintf(w, "{\"trial\":%d,\"algorithm\":%q,\"variant\":%q,\"nodes\":%d,\"seed\":%d,\"scenario\":%q%s}\n",
		t.Trial, t.Algo.Alg.Name, t.Algo.Variant, t.Nodes, t.Seed, t.Spec.Scenario, rt); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return trace.copyTo(w)
}

// BaseRow is the trial's row before it runs: the columns that identify it
// (reports.Row.Key), which --resume matches against earlier results.
func (t Trial) BaseRow() reports.Row {
	s := t.Spec
	row := reports.Row{
		Algorithm: t.Algo.Alg.Name, Variant: t.Algo.Variant, Runtime: "sim", Scenario: s.Scenario,
		Nodes: t.Nodes, Arrangement: s.IDs.String() + s.RankBy.suffix(), Initiators: s.Initiators.String(),
		Trial: t.Trial, Seed: t.Seed, Latency: s.Latency.String(), TS: s.Latency.Mean().Seconds(), DS: s.Latency.Bound().Seconds(),
	}
	if t.Algo.Alg.StartsAll {
		row.Initiators = "all"
	}
	return row
}

// RunTrial runs one trial on the simulator and returns its row. It never
// panics: an algorithm that panics yields a row whose error column says so.
func RunTrial(t Trial, trace io.Writer) reports.Row {
	row, _ := t.run(context.Background(), Sim, false, trace, nil)
	return row
}

// inUnits returns d in seconds and in units of T. Under the reference model
// both d and T are whole nanoseconds and d is a whole multiple of T, so the
// ratio is an exact integer.
func inUnits(d, t time.Duration) (reports.Opt[float64], reports.Opt[float64]) {
	return reports.Some(d.Seconds()), reports.Some(float64(d) / float64(t))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
