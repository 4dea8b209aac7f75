package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// MaxLiveNodes bounds a live cluster: every node is a process and every
// directed link a proxy. It is the harness's harness.MaxNodes (a test
// keeps them equal), checked here so that a flag fails before anything
// runs.
const MaxLiveNodes = 128

// ValidateLive reports what a live run cannot do with this spec, naming the
// flag at fault: live links delay in whole milliseconds (Toxiproxy's
// latency toxic), so T must be at least 1 ms and a constant latency a whole
// number of milliseconds.
func (s *Spec) ValidateLive() error {
	if err := s.Validate(); err != nil {
		return err
	}
	t := s.Latency.Mean()
	if t < time.Millisecond {
		return fmt.Errorf("--latency %s: live links delay in whole milliseconds (Toxiproxy's latency toxic), so T must be at least 1ms", s.Latency)
	}
	if s.Latency.Constant() && t%time.Millisecond != 0 {
		return fmt.Errorf("--latency %s: live links delay in whole milliseconds (Toxiproxy's latency toxic); use %v or %v", s.Latency, t.Truncate(time.Millisecond), t.Truncate(time.Millisecond)+time.Millisecond)
	}
	for _, n := range s.Nodes {
		if n > MaxLiveNodes {
			return fmt.Errorf("--nodes %d: a live cluster is at most %d processes", n, MaxLiveNodes)
		}
	}
	switch {
	case s.Detector.Kind == "inaccurate":
		return fmt.Errorf("--detector %s: the inaccurate detector is simulator-only; live runs take perfect(D) or heartbeat(P,τ)", s.Detector)
	case s.RankBy == RankByEpoch:
		return fmt.Errorf("--rank epoch: live nodes are ranked by the identities they mint; epoch ranking is simulator-only")
	case s.IDs.Mode == "pow":
		return fmt.Errorf("--ids %s: live nodes mint their own identities; the arrangement orders them (random, ascending, descending or a list)", s.IDs)
	}
	return nil
}

// liveUnsupported says why the live runtime cannot apply a fault kind; a
// kind not listed runs live.
var liveUnsupported = map[string]string{
	"loss":      "TCP links never lose a message and the node's link layer cannot drop one in this build",
	"duplicate": "the node's link layer cannot duplicate a message in this build",
	"reorder":   "the node's link layer cannot reorder messages in this build (TCP keeps each link FIFO)",
}

// checkLive reports what of a scenario the live runtime cannot do: every
// such fault is named, with the reason, and nothing runs.
func checkLive(sc *chaos.Scenario, spec *Spec, fail func(field, format string, args ...any)) {
	if len(sc.Network.Links) > 0 {
		fail("network.links", "runtime live: per-link latency models are simulator-only; live links all take network.latency")
	}
	for i := range sc.Faults {
		f := &sc.Faults[i]
		path := fmt.Sprintf("faults[%d]", i)
		if why, ok := liveUnsupported[f.Kind]; ok {
			fail(path+".kind", "runtime live cannot apply a %s fault: %s; run this scenario with runtime: sim", f.Kind, why)
			continue
		}
		if f.Kind == "suspect" && spec.Detector.Kind == "heartbeat" {
			fail(path+".kind", "runtime live cannot apply a suspect fault under the heartbeat detector (its nodes judge by their own heartbeats); use perfect(D), or runtime: sim")
		}
		if f.Kind == "crash" && f.Start.Kind == chaos.AtStart && (!f.For.IsZero() || f.Heal != nil) {
			fail(path+".for", "runtime live cannot restart a process crashed at start: it never linked to its peers; crash it at a time or trigger instead")
		}
	}
}

// LiveBaseRow is a live trial's row before it runs (see BaseRow).
func (t Trial) LiveBaseRow() reports.Row {
	row := t.BaseRow()
	row.Runtime = "live"
	row.Latency = liveLatencyLabel(t.Spec.Latency)
	return row
}

// liveLatencyLabel is the latency column of a live row: the model, marked
// when Toxiproxy's unseeded jitter is part of it.
func liveLatencyLabel(l trial.Latency) string {
	if n, ok := l.(trial.Normal); ok && n.SD >= time.Millisecond {
		return l.String() + "+toxiproxy-jitter(unseeded)"
	}
	return l.String()
}

// RunLiveTrial runs one trial on rt, the live harness, and returns its
// row; trace, when set, receives the events of the attempt kept (the
// trial runs again while the host pushes it outside its algorithm's
// model: MaxReruns).
func RunLiveTrial(ctx context.Context, rt Runtime, t Trial, trace io.Writer) reports.Row {
	row, sp, err := runLiveAttempts(ctx, rt, t, trace != nil, nil)
	defer sp.discard()
	if err == nil && sp != nil {
		err = sp.copyTo(trace)
	}
	if err != nil {
		if row.Algorithm == "" {
			row = t.LiveBaseRow()
		}
		row.Error = oneLine(err.Error())
		row.Correct, row.Live = false, false
	}
	return row
}

// MaxReruns is how many times a live trial runs again when the host,
// not its configuration, took it outside its algorithm's model
// (trial.OutsideModel: an algorithm that assumes bounded delay saw a
// message outlast D, because a loaded host scheduled a process late).
// Such an attempt measures the host, not the algorithm, so it is not
// kept; the row of the attempt kept counts those run again (reruns) and
// its own overruns, and after MaxReruns reruns the last attempt is kept
// whatever it shows. Whether an attempt is run again depends on its
// delays alone, never on its verdict, so keeping attempts biases no
// figure towards correct.
const MaxReruns = 2

// runLiveAttempts runs t on rt until an attempt stays within its
// algorithm's model or MaxReruns have run again, and returns the row kept
// and, with trace, the kept attempt's trace spooled to disk (the others'
// are discarded). before, when set, is called before each attempt.
func runLiveAttempts(ctx context.Context, rt Runtime, t Trial, trace bool, before func()) (reports.Row, *spool, error) {
	for reruns := int64(0); ; reruns++ {
		if before != nil {
			before()
		}
		var sp *spool
		var w io.Writer
		if trace {
			var err error
			if sp, err = newSpool(); err != nil {
				return reports.Row{}, nil, err
			}
			w = sp
		}
		row, outside := t.run(ctx, rt, true, w, nil)
		if !outside || reruns == MaxReruns || ctx.Err() != nil {
			row.Reruns = reports.Some(reruns)
			return row, sp, nil
		}
		sp.discard()
	}
}

// RunLive runs trials on rt, the live harness, one at a time (a trial
// already uses a process per node), and emits each row as it ends;
// opt.Trace, when set, receives each trial's trace first, as Run writes
// them. It stops at the first emit error, when ctx ends (after the
// harness has released the running trial's processes and proxies) or at
// the first trial that failed for the infrastructure (an error wrapping
// trial.ErrInfrastructure, naming the trial: that trial is no result, so
// it is not emitted, and a resumed run runs it again), and returns why.
// opt.Parallel is ignored.
func RunLive(ctx context.Context, trials []Trial, rt Runtime, opt Options, emit func(reports.Row) error) error {
	watch := &infraWatch{rt: rt}
	rt = watch
	for _, t := range trials {
		if opt.Skip != nil && opt.Skip(t) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		row, sp, err := runLiveSpooled(ctx, watch, t, opt.Trace != nil)
		if err != nil {
			return err
		}
		if opt.Trace != nil {
			err := writeTrace(opt.Trace, t, "live", sp)
			sp.discard()
			if err != nil {
				return err
			}
		}
		if err := emit(row); err != nil {
			return err
		}
	}
	return nil
}

// infraWatch passes trials to rt and keeps the last error that was the
// infrastructure's.
type infraWatch struct {
	rt  Runtime
	err error
}

func (w *infraWatch) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	rec, err := w.rt.Run(ctx, cfg)
	if errors.Is(err, trial.ErrInfrastructure) {
		w.err = err
	}
	return rec, err
}

// runLiveSpooled runs one live trial, its trace (when asked for) spooled
// to disk; it returns why the trial is no result, if it is none, with the
// spool already discarded.
func runLiveSpooled(ctx context.Context, watch *infraWatch, t Trial, trace bool) (reports.Row, *spool, error) {
	row, sp, err := runLiveAttempts(ctx, watch, t, trace, func() { watch.err = nil })
	if err != nil {
		return reports.Row{}, nil, err
	}
	if err := ctx.Err(); err != nil {
		sp.discard()
		return row, nil, err // an interrupted trial's row is not a result
	}
	if watch.err != nil {
		sp.discard()
		return row, nil, fmt.Errorf("%s trial %d on %d nodes: %w", row.Algorithm, row.Trial, row.Nodes, watch.err)
	}
	return row, sp, nil
}
