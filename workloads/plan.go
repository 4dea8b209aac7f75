package workloads

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// Algo is one algorithm to run, with its variant and parameters.
type Algo struct {
	Alg     *nodes.Algorithm
	Variant string
	Params  nodes.Params
	// UpTo, when set, is the largest cluster this algorithm runs on: its
	// Algorithm.AllUpTo when "all" chose it. Larger sizes are left out of
	// the plan for it alone.
	UpTo int
}

// Spec is one experiment: every algorithm at every size, Trials times each.
type Spec struct {
	Scenario   string // "adhoc" for a command-line run
	Algos      []Algo
	Nodes      []int
	IDs        IDs
	Initiators Initiators
	Trials     int
	Seed       uint64
	Latency    trial.Latency
	Deadline   time.Duration // 0: trial.DefaultDeadline
	// KeepRunning runs quorum trials to their deadline even once their
	// election is over for good (trial.Config.KeepRunning).
	KeepRunning bool
	// LiveUnit has the simulator's machines read their parameters in the
	// live unit (trial.LiveUnit: T plus the live runtime's allowance), as
	// live nodes read them, instead of in T: the simulated twin of a live
	// run, whose timeouts and whose faults' timing against them are the
	// live run's. Live trials always read them so.
	LiveUnit bool
	Crashes  []CrashSpec
	Detector trial.Detector // zero: trial.DefaultDetector
	RankBy   RankBy         // "" or "id": by identity; "epoch": by H(id ‖ nonce)
	// Faults is a scenario's fault timeline, applied in every trial after
	// Crashes; LinkLatency its per-link latency models (scenario.go).
	Faults      []chaos.Fault
	LinkLatency []LinkLatency
	// Expect is what must hold (expect.go): checked per trial into the
	// expect column, and over the trials by CheckRun.
	Expect chaos.Expect
	// Description is the scenario's, for people (reports show it beside
	// the outcomes it expects); it shapes no trial.
	Description string
	// Runtime is "live" for a scenario that runs on node processes through
	// Toxiproxy (runtime: live); anything else runs on the simulator, but
	// for a live-only algorithm (nodes.Algorithm.LiveOnly), which runs live
	// whatever the scenario's runtime (Trial.Live): a runtime chooses for
	// the algorithms that run on both.
	Runtime string
	// Budget bounds every trial's events and events in flight (zero fields:
	// trial.DefaultBudget, scaled to each trial's N). The simulator
	// enforces it; a trial that exhausts it is recorded as not live.
	Budget trial.Budget
	// TraceHash is a scenario's trace-hash: the sha256 of its one trial's
	// trace, which run and replay check (shrink.TraceOf).
	TraceHash string
	// Draws is a scenario's draws: the prefix of its one trial's random
	// draws (trial.Config.Draws); nil: the seed's alone.
	Draws *trial.Draws
	// Hosts is a scenario's hosts: section, as YAML (harness.ParseHosts
	// reads it), its relative key paths in HostsDir, the scenario file's
	// directory; nil without one. Where the nodes run shapes no trial's
	// plan, as --hosts does not.
	Hosts    []byte
	HostsDir string

	// planned is the fault timeline every trial of the spec shares,
	// compiled once by Plan rather than per trial (issue 42); nil before
	// Plan. A copy of the spec (a test's, with other faults) compiles its
	// own, and so does one given other faults after Plan.
	planned *plannedFaults
}

// plannedFaults is a spec's timelineFaults for the T they were compiled
// for. Their closures only read the spec, so trials run at once share them.
type plannedFaults struct {
	spec   *Spec // the spec they were compiled for, not a copy of it
	t      time.Duration
	n      int // the spec's crashes, link latencies and faults then
	faults []trial.Fault
}

// plannedFor returns the faults planned for s under T, or nil.
func (s *Spec) plannedFor(T time.Duration) []trial.Fault {
	p := s.planned
	if p == nil || p.spec != s || p.t != T || p.n != len(s.Crashes)+len(s.LinkLatency)+len(s.Faults) {
		return nil
	}
	return p.faults
}

// Unit is the unit the spec's machines read their parameters in, and a
// heartbeat detector its period and timeout where written in T or D
// (trial.Detector.In): the live unit (trial.LiveUnit) on live runs and
// with LiveUnit, T otherwise. The times of its faults, crashes and
// deadline stay in T on both runtimes.
func (s *Spec) Unit() time.Duration {
	if s.LiveUnit || orSim(s.Runtime) != "sim" {
		return trial.LiveUnit(s.Latency.Mean(), 0)
	}
	return s.Latency.Mean()
}

// Trial is one run of one algorithm on one cluster.
type Trial struct {
	Index int // position in the plan: rows are emitted in this order
	Spec  *Spec
	Algo  Algo
	Nodes int
	Trial int    // 0..Trials-1 within its algorithm and size
	Seed  uint64 // TrialSeed(Spec.Seed, Trial)
	// Live says it runs on node processes (Executor.Live): its spec's
	// runtime is live, or the run's is (--runtime live), or its algorithm
	// runs only live.
	Live bool
}

// Key identifies the trial across runs, for resume: its row's key before
// it runs (BaseRow, or LiveBaseRow for a live trial).
func (t Trial) Key() reports.Key {
	if t.Live {
		return t.LiveBaseRow().Key()
	}
	return t.BaseRow().Key()
}

// Validate checks a spec before anything runs, so that bad input fails fast
// with a message naming the flag at fault.
func (s *Spec) Validate() error {
	if len(s.Algos) == 0 {
		return fmt.Errorf("no algorithm to run")
	}
	if len(s.Nodes) == 0 {
		return fmt.Errorf("--nodes: no cluster size")
	}
	if s.Trials < 1 {
		return fmt.Errorf("--trials %d: need at least one trial", s.Trials)
	}
	if s.Latency == nil {
		return fmt.Errorf("--latency: no latency model")
	}
	if s.Deadline < 0 {
		return fmt.Errorf("--deadline %v is negative", s.Deadline)
	}
	if s.Budget.MaxEvents < 0 {
		return fmt.Errorf("--max-events %d is negative", s.Budget.MaxEvents)
	}
	if s.Budget.MaxInFlight < 0 {
		return fmt.Errorf("--max-inflight %d is negative", s.Budget.MaxInFlight)
	}
	for _, n := range s.Nodes {
		if err := s.IDs.Check(n); err != nil {
			return err
		}
		// Resolve the crashes against a sample arrangement: a selector that
		// matches no process fails here, before anything runs.
		for _, a := range s.Algos {
			if len(s.Crashes) == 0 {
				break
			}
			ranks := IDs{Mode: "ascending"}.Ranks(n, 0) // any distinct ranks do here
			var initiators []int
			switch {
			case a.Alg.StartsAll:
				initiators = trial.AllPositions(n)
			case s.Initiators.Check(n) == nil:
				initiators = s.Initiators.Positions(ranks, TrialSeed(s.Seed, 0))
			}
			if err := checkCrashes(s.Crashes, ranks, initiators); err != nil {
				return err
			}
		}
		for _, a := range s.Algos {
			if a.Alg.StartsAll {
				continue
			}
			if err := s.Initiators.Check(n); err != nil {
				return err
			}
		}
	}
	for _, a := range s.Algos {
		if err := a.Alg.CheckParams(a.Params); err != nil {
			return err
		}
		if a.Alg.Model == nodes.ModelAnonymous && s.IDs.Mode == "anonymous" {
			return fmt.Errorf("--algo %s: this algorithm is anonymous already (it draws its own ids and reads none), and its winner names itself by its rank for the checker: run it on distinct ids (--ids random), not --ids anonymous", a.Alg.Name)
		}
		if a.Alg.Model == nodes.ModelRounds {
			if err := s.IDs.numbers(a.Alg.Name, s.RankBy); err != nil {
				return err
			}
		}
		// Let the algorithm validate its parameters once, at the first size.
		if _, err := a.Alg.New(nodes.Config{Variant: a.Variant, Params: a.Params, N: s.Nodes[0], T: s.Latency.Mean(), D: s.Latency.Bound()}); err != nil {
			return fmt.Errorf("%s: %w", a.Alg.Name, err)
		}
	}
	return nil
}

// Plan expands the spec into trials: algorithm-major, then size, then trial.
// It compiles the trials' fault timeline once (planned).
func (s *Spec) Plan() []Trial {
	s.planned = nil // compiled afresh: the spec may have changed since
	if s.Latency != nil {
		T := s.Latency.Mean()
		f := s.timelineFaults(T)
		s.planned = &plannedFaults{spec: s, t: T, n: len(f), faults: f[:len(f):len(f)]} // a trial's append copies
	}
	// Room for every trial at once: a sweep of small trials plans them by
	// the hundred thousand, and a slice doubling as it grew copied them.
	out := make([]Trial, 0, len(s.Algos)*len(s.Nodes)*s.Trials)
	for _, a := range s.Algos {
		for _, n := range s.Nodes {
			if a.UpTo > 0 && n > a.UpTo {
				continue
			}
			for t := range s.Trials {
				out = append(out, Trial{Index: len(out), Spec: s, Algo: a, Nodes: n, Trial: t, Seed: TrialSeed(s.Seed, t), Live: s.Runtime == "live" || a.Alg.LiveOnly != ""})
			}
		}
	}
	return out
}
