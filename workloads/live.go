package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// ValidateLive reports what the live runtime cannot do with this spec
// (live.Capabilities), naming the flag at fault.
func (s *Spec) ValidateLive() error {
	if err := s.Validate(); err != nil {
		return err
	}
	c := &live.Capabilities
	if err := c.CheckLatency(s.Latency); err != nil {
		return fmt.Errorf("--latency %s: %w", s.Latency, err)
	}
	for _, n := range s.Nodes {
		if err := c.CheckNodes(n); err != nil {
			return fmt.Errorf("--nodes %d: %w", n, err)
		}
	}
	if err := c.CheckDetector(s.Detector); err != nil {
		return fmt.Errorf("--detector %s: %w", s.Detector, err)
	}
	switch {
	case c.MintsIDs && s.RankBy == RankByEpoch:
		return fmt.Errorf("--rank epoch: live nodes are ranked by the identities they mint; epoch ranking is simulator-only")
	case c.MintsIDs && s.IDs.Mode == "pow":
		return fmt.Errorf("--ids %s: live nodes mint their own identities; the arrangement orders them (random, ascending, descending or a list)", s.IDs)
	}
	return nil
}

// checkLive reports what of a scenario the live runtime cannot do
// (live.Capabilities): every such fault is named, with the reason, and
// nothing runs.
func checkLive(sc *chaos.Scenario, spec *Spec, fail func(field, format string, args ...any)) {
	c := &live.Capabilities
	if why, lacks := c.Lacks[trial.EffLinkModel]; lacks && len(sc.Network.Links) > 0 {
		fail("network.links", "runtime live: %s", why)
	}
	for i := range sc.Faults {
		f := &sc.Faults[i]
		path := fmt.Sprintf("faults[%d]", i)
		if why, ok := c.Lacks[effectOf(f)]; ok {
			fail(path+".kind", "runtime live cannot apply a %s fault: %s; run this scenario with runtime: sim", f.Kind, why)
			continue
		}
		if f.Kind == "suspect" && c.OwnHeartbeats && spec.Detector.Kind == "heartbeat" {
			fail(path+".kind", "runtime live cannot apply a suspect fault under the heartbeat detector (its nodes judge by their own heartbeats); use perfect(D), or runtime: sim")
		}
		if f.Kind == "crash" && !c.RestartsAtStart && f.Start.Kind == chaos.AtStart && (!f.For.IsZero() || f.Heal != nil) {
			fail(path+".for", "runtime live cannot restart a process crashed at start: it never linked to its peers; crash it at a time or trigger instead")
		}
	}
}

// effectOf is the effect a scenario fault's kind injects (EffNone for a
// kind the scenario's parser refused already).
func effectOf(f *chaos.Fault) trial.Effect {
	k := f.KindInfo()
	if k == nil {
		return trial.EffNone
	}
	var tf trial.Fault
	k.Effect(f, &tf, time.Millisecond) // the effect depends on the kind alone, not on T
	return tf.Effect
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
