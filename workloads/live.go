package workloads

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// ValidateSim reports what the simulator cannot run of this spec
// (sim.Capabilities): a live-only algorithm, naming it and why.
func (s *Spec) ValidateSim() error {
	for _, a := range s.Algos {
		if err := sim.Capabilities.CheckAlgorithm(a.Alg); err != nil {
			return fmt.Errorf("--algo %s: %w", a.Alg.Name, err)
		}
	}
	return nil
}

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
	case c.MintsIDs && s.IDs.Mode == "anonymous":
		return fmt.Errorf("--ids anonymous: live nodes mint distinct identities, so an anonymous ring is simulator-only")
	}
	for _, a := range s.Algos {
		if a.Alg.Model == nodes.ModelRounds && c.MintsIDs {
			// Minted ids are 256-bit numbers, and real processing delays
			// break rounds of T: the model is the simulator's.
			return fmt.Errorf("--algo %s: an algorithm of synchronous rounds reads ids as small numbers, and live nodes mint theirs; it is simulator-only", a.Alg.Name)
		}
	}
	return nil
}

// checkLive reports what of a scenario the live runtime cannot do
// (live.Capabilities): every such fault is named, with the reason, and
// nothing runs.
func checkLive(sc *chaos.Scenario, spec *Spec, fail func(field, format string, args ...any)) {
	c := &live.Capabilities
	if why, lacks := c.Lacks[trial.LinkModel{}.Name()]; lacks && len(sc.Network.Links) > 0 {
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

// effectOf names the effect a scenario fault's kind injects, as
// trial.Fault.What does ("" for a kind the scenario's parser refused
// already).
func effectOf(f *chaos.Fault) string {
	if f.KindInfo() == nil {
		return ""
	}
	tf := f.Compile(time.Millisecond) // the effect depends on the kind alone, not on T
	return tf.What()
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
// model: trial.MaxReruns).
func RunLiveTrial(ctx context.Context, rt Runtime, t Trial, trace io.Writer) reports.Row {
	res, sp, err := t.attempts(ctx, rt, t.config(t.Spec.IDs), true, trace != nil)
	row := res.Row
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

// attempts runs cfg, trial t's configuration, on rt: once on the
// simulator; live, until an attempt stays within its algorithm's model
// or trial.MaxReruns have run again. It returns the attempt kept and, with
// trace, its trace spooled to disk (the others' are discarded); the error
// says the trace could not be spooled.
func (t Trial) attempts(ctx context.Context, rt Runtime, cfg trial.Config, live, trace bool) (Result, *spool, error) {
	for reruns := int64(0); ; reruns++ {
		var sp *spool
		var w io.Writer
		if trace {
			var err error
			if sp, err = newSpool(); err != nil {
				return Result{}, nil, err
			}
			w = sp
		}
		res := t.execute(ctx, rt, cfg, live, w)
		if !live {
			return res, sp, nil
		}
		if !res.Outside || reruns == trial.MaxReruns || ctx.Err() != nil {
			res.Row.Reruns = reports.Some(reruns)
			if res.Outside && reruns == trial.MaxReruns && res.Row.Expect != "" {
				res.Row.Expect = reports.ExpectUnjudged + res.Row.Expect
			}
			return res, sp, nil
		}
		sp.discard()
	}
}

// runLiveSpooled runs one live trial, its trace (when asked for) spooled
// to disk; it returns why the trial is no result, if it is none (ctx
// ended, or the infrastructure failed), with the spool already discarded.
func runLiveSpooled(ctx context.Context, rt Runtime, t Trial, trace bool) (reports.Row, *spool, error) {
	res, sp, err := t.attempts(ctx, rt, t.config(t.Spec.IDs), true, trace)
	if err != nil {
		return reports.Row{}, nil, err
	}
	if err := res.noResult(ctx); err != nil {
		sp.discard()
		return res.Row, nil, fmt.Errorf("%s trial %d on %d nodes: %w", res.Row.Algorithm, res.Row.Trial, res.Row.Nodes, err)
	}
	return res.Row, sp, nil
}
