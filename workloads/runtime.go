package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// Runtime runs one trial and returns what it counted. A nil record with an
// error means the trial could not run; a record with an error, that it ran
// but cannot be judged faithfully (its row is then neither correct nor
// live). Events go to cfg.Events; a runtime that settles the ranks itself
// (live nodes mint theirs) tells a trial.SetupSink before the first. Both
// runtimes run the trial's crashes and faults (cfg.Faults) on
// the one fault engine, nodes/trial/timeline.
type Runtime interface {
	Run(ctx context.Context, cfg trial.Config) (*trial.Record, error)
}

// Sim is the simulator (nodes/sim) as a Runtime.
var Sim Runtime = simRuntime{}

type simRuntime struct{}

func (simRuntime) Capabilities() trial.Capabilities { return sim.Capabilities }

func (simRuntime) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	return sim.RunContext(ctx, cfg)
}

// judge is what a trial's events go to: its checker and, when asked for,
// its trace.
type judge struct {
	cfg     trial.Config
	checker *check.Checker
	trace   *trial.Trace
	sink    trial.Sink // trace and checker
	err     error      // building the checker for the ranks that ran (Setup)
}

func newJudge(cfg *trial.Config, unit time.Duration, trace io.Writer) (*judge, error) {
	c, err := NewChecker(cfg, unit)
	if err != nil {
		return nil, err
	}
	j := &judge{cfg: *cfg, checker: c}
	if trace != nil {
		j.trace = trial.NewTrace(trace)
	}
	j.tee()
	return j, nil
}

func (j *judge) tee() {
	j.sink = j.checker
	if j.trace != nil {
		j.sink = trial.Tee(j.trace, j.checker)
	}
}

// Event, Kinds and Setup make the judge a trial.SetupSink: a live trial's
// checker is built again for the ranks its nodes minted. Only a trace
// reads a message's ranks.
func (j *judge) Event(e *trial.Event) { j.sink.Event(e) }

func (j *judge) Kinds() trial.Kinds { return trial.KindsOfSink(j.sink) }

// WantsSend makes the judge a trial.SendFilter, as its sinks are.
func (j *judge) WantsSend(k nodes.Kind) bool { return trial.WantsSend(j.sink, k) }
func (j *judge) ReadsRanks() bool            { return j.trace != nil }
func (j *judge) Setup(s trial.Setup) {
	j.cfg.Ranks = s.Ranks
	c, err := NewChecker(&j.cfg, s.Unit)
	if err != nil {
		j.err, c = err, check.New(s.Ranks)
	}
	j.checker = c
	j.tee()
}

// Result is what one trial yields: what the runtime counted, the
// checker's verdict and the row built from both.
type Result struct {
	Record  *trial.Record // nil when the trial could not run (Row.Error says why)
	Verdict check.Verdict
	Row     reports.Row
	// Outside says the host took a live run outside its algorithm's model
	// through no doing of its configuration (trial.OutsideModel: it
	// delayed a message past D): the attempt measures the host, and is
	// run again (trial.MaxReruns).
	Outside bool
	err     error // the runtime's, already in Row.Error
}

// noResult says why a trial is no result, if it is none: ctx ended (an
// interrupted trial's row is not a result), or the runtime's
// infrastructure failed (trial.ErrInfrastructure). A resumed run runs it
// again.
func (r *Result) noResult(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if errors.Is(r.err, trial.ErrInfrastructure) {
		return r.err
	}
	return nil
}

// RunTrial runs one trial of cfg on rt and returns its record, its
// verdict and its row: the row of a trial of its own (scenario "config",
// trial 0), with the columns the record and verdict give as a planned
// trial's. On the live runtime (Capabilities().Runtime "live") the trial
// runs again while the host takes it outside its model (trial.MaxReruns), as in
// a run. It never panics. The error says the trial is no result, with
// what was seen in Result: ctx ended, or the runtime's infrastructure
// failed (an error wrapping trial.ErrInfrastructure). On the simulator,
// cfg.Events, when set, sees every event after the trial's judge.
func RunTrial(ctx context.Context, rt Runtime, cfg trial.Config) (Result, error) {
	t := configTrial(&cfg)
	res, _, _ := t.attempts(ctx, rt, cfg, CapabilitiesOf(rt).Runtime == "live", false) // no trace: no spool to fail
	if err := res.noResult(ctx); err != nil {
		return res, fmt.Errorf("%s trial on %d nodes: %w", t.Algo.Alg.Name, t.Nodes, err)
	}
	return res, nil
}

// configTrial is the trial RunTrial runs cfg as: a spec of its own that
// says what cfg says, for the row builder.
func configTrial(cfg *trial.Config) Trial {
	s := &Spec{Scenario: "config", Trials: 1, Seed: cfg.Seed, Latency: cfg.Latency, Deadline: cfg.Deadline,
		KeepRunning: cfg.KeepRunning, Detector: cfg.Detector, Budget: cfg.Budget}
	a := Algo{Alg: cfg.Algorithm, Variant: cfg.Variant, Params: cfg.Params}
	return Trial{Spec: s, Algo: a, Nodes: cfg.Ranks.Len(), Seed: cfg.Seed}
}

// CapabilitiesOf is what rt declares it runs (trial.Capabilities), the
// simulator's when it declares nothing.
func CapabilitiesOf(rt Runtime) trial.Capabilities {
	if c, ok := rt.(interface{ Capabilities() trial.Capabilities }); ok {
		return c.Capabilities()
	}
	return sim.Capabilities
}

// simulate runs trial t on rt, a simulated runtime, and returns its row;
// processed, when set, follows the trial's progress
// (trial.Config.Processed).
func (t Trial) simulate(ctx context.Context, rt Runtime, trace io.Writer, processed *atomic.Int64) reports.Row {
	cfg := t.simConfig()
	cfg.Processed = processed
	return t.execute(ctx, rt, cfg, false, trace).Row
}

// simConfig is the configuration trial t runs with on the simulator.
func (t Trial) simConfig() trial.Config {
	cfg := t.config(t.Spec.IDs)
	if t.Spec.LiveUnit {
		cfg.Unit = t.Spec.Unit()
	}
	return cfg
}

// Watch runs planned trial t on rt, a simulated runtime, as a run does
// (the same configuration, judge and row: Result.Row is the row `electbench
// run` writes for it, its expect column included), with every event also
// told, after the judge, to the sink watch returns for the trial's
// configuration: a search's coverage of abstract states (package hunt).
// A nil watch, or a nil sink, watches nothing.
func (t Trial) Watch(ctx context.Context, rt Runtime, watch func(cfg *trial.Config) trial.Sink) Result {
	cfg := t.simConfig()
	if watch != nil {
		cfg.Events = watch(&cfg)
	}
	return t.execute(ctx, rt, cfg, false, nil)
}

// execute runs cfg, trial t's configuration, on rt once and returns what
// it yields.
// It never panics: an algorithm that panics yields a row whose error
// column says so.
func (t Trial) execute(ctx context.Context, rt Runtime, cfg trial.Config, live bool, trace io.Writer) (res Result) {
	a := t.Algo
	var theory *figures // the fault-free reference figures, when computed during the run
	res.Row = t.BaseRow()
	if live {
		res.Row = t.LiveBaseRow()
	}
	row := &res.Row
	defer func() {
		if r := recover(); r != nil {
			row.Error = oneLine(fmt.Sprintf("panic: %v", r))
			row.Correct, row.Live = false, false
		}
	}()
	ranks, initiators := cfg.Ranks, cfg.Initiators
	if !live && a.Alg.Theory != nil && t.Nodes >= aheadFrom {
		ahead := figuresAhead(a.Alg.Theory, t.theoryInput(ranks, initiators))
		defer ahead.wait()
		theory = ahead
	}
	j, err := newJudge(&cfg, cfg.UnitOrT(), trace)
	if err != nil {
		row.Error = oneLine(err.Error())
		return
	}
	// A caller's own sink (Watch: a search's coverage) sees the events
	// after the judge; with none, the judge's sink runs alone, as before.
	cfg.Events = trial.Tee(j.sink, cfg.Events)
	if live {
		cfg.Events = j
	}
	rec, runErr := rt.Run(ctx, cfg)
	res.err = runErr
	if rec == nil {
		err := runErr
		if err == nil {
			err = fmt.Errorf("%s runtime returned no record", row.Runtime)
		}
		row.Error = oneLine(err.Error())
		return
	}
	var failure []string
	// stopped says the budget alone ended the run: a storm of a
	// bounded-delay algorithm the host took outside its model ends so,
	// and whether the attempt runs again depends on its delays only.
	stopped := false
	if runErr != nil {
		failure = append(failure, runErr.Error())
		if be, ok := errors.AsType[*trial.BudgetError](runErr); ok {
			row.Budget, stopped = be.What, true
		}
	}
	if j.err != nil {
		failure = append(failure, "live: "+j.err.Error())
		stopped = false
	}
	if j.trace != nil {
		if err := j.trace.Flush(); err != nil {
			row.Error = oneLine(fmt.Sprintf("writing trace: %v", err))
		}
	}
	o := outcome{rec: rec, ranks: j.cfg.Ranks, initiators: initiators, theory: theory, failure: oneLine(strings.Join(failure, "; "))}
	o.crashedAtStart, o.faulty = disturbance(&cfg, rec)
	o.verdict = j.checker.Finish(&rec.Decisions, rec.Quiescent, rec.End)
	t.fillRow(row, o)
	res.Record, res.Verdict = rec, o.verdict
	if live {
		row.AnonymousRefused = reports.Some(rec.AnonymousRefused)
		row.Disputes = disputes(rec.Disputes)
		if rec.Clocked {
			row.ClockErrorS = reports.Some(rec.ClockError.Seconds())
		}
		res.Outside = (o.failure == "" || stopped) && trial.OutsideModel(&cfg, rec)
	}
	return
}

// config is the configuration trial t runs with, its identities placed
// by ids. Live nodes mint their own identities and take the places of
// these ranks in their order, so relative ranks are the arrangement's.
func (t Trial) config(ids IDs) trial.Config {
	s, a := t.Spec, t.Algo
	ranks := s.RankBy.apply(ids.Ranks(t.Nodes, t.Seed), t.Seed)
	var initiators []int
	if !a.Alg.StartsAll {
		initiators = s.Initiators.Positions(ranks, t.Seed)
	}
	return trial.Config{
		Algorithm: a.Alg, Variant: a.Variant, Params: a.Params,
		Ranks: ranks, Initiators: initiators, Latency: s.Latency,
		Seed: t.Seed, Deadline: s.Deadline, KeepRunning: s.KeepRunning,
		Detector: s.Detector, Budget: s.Budget, Faults: s.timelineFaults(s.Latency.Mean()),
		Draws: s.Draws,
	}
}

// disturbance says which processes a run had down before it began
// (crashed at the start; live, also refused by their peers) and whether
// anything else disturbed it: a fault of cfg's other than a crash at the
// start (a scenario's fault, a link latency model, a crash once it ran).
// A disturbed run's crashes all count as faults.
func disturbance(cfg *trial.Config, rec *trial.Record) (crashedAtStart []int, faulty bool) {
	for i := range cfg.Faults {
		f := &cfg.Faults[i]
		faulty = faulty || !(f.Quiet && f.Effect == trial.EffCrash && f.Start.Immediate())
	}
	for _, c := range rec.Crashes {
		faulty = faulty || c.At > 0
	}
	if !faulty {
		for _, c := range rec.Crashes {
			crashedAtStart = append(crashedAtStart, c.Pos)
		}
	}
	return crashedAtStart, faulty
}

var _ trial.SetupSink = (*judge)(nil)
