package workloads

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"
	"unsafe"

	"github.com/dustin/go-humanize"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// Estimate is what a simulated trial is expected to cost, worked out from
// its plan alone (N, topology, algorithm, initiators, id arrangement,
// detector, latency model) before anything runs: the plan guard refuses a
// run that cannot fit, shards balance on Events, and progress turns the
// trials' measured cost per event into an ETA.
type Estimate struct {
	Events   float64 // events the trial processes (messages delivered, timers fired)
	InFlight float64 // events pending at the busiest instant
	Memory   float64 // peak bytes, with InFlight events pending
}

// Bytes the simulator holds per process whatever the algorithm, besides
// the rank (rankBytes): the machine's interface (16), alive flags (2, the
// simulator's and the checker's), the decision (16), the checker's belief
// (4). The machine table keeps 8 bytes of the interface, or none when the
// machines were built in one array (nodes.Batch); the rest covers the
// allocator's rounding of machines made one at a time, which machineBytes
// does not count.
const perProcessBytes = 16 + 2 + 16 + 4

// rankBytes is what a process's rank takes (nodes.Ranks): 4 bytes for the
// small identities of the random, ascending and descending arrangements
// and of lists below 2³², 48 for minted identities and epoch ranks.
func (t Trial) rankBytes() int {
	if t.Spec.IDs.small() && t.Spec.RankBy != RankByEpoch {
		return 4
	}
	return int(unsafe.Sizeof(nodes.Rank{}))
}

// externalProcessBytes is a node program of another language, one process
// a simulated node.
const externalProcessBytes = 1 << 20

// Estimate works out trial t's expected cost. The figures are those of the
// reference model (ALGORITHMS.md) for the common case, rounded up where the
// arrangement makes the worst case likely (ascending or descending ids with
// many initiators); they are estimates to refuse the hopeless and to
// predict, not bounds.
func (t Trial) Estimate() Estimate {
	e := t.load()
	s, a, n := t.Spec, t.Algo.Alg, float64(t.Nodes)
	mem := n * float64(perProcessBytes+t.rankBytes()+machineBytes(t.Algo, t.Nodes))
	if a.Topology == nodes.Complete {
		mem += n * float64(unsafe.Sizeof(nodes.Peer{})) // Env.Peers, shared
		mem += n * 64                                   // armed timers (a map entry each)
		if !s.Latency.Constant() {
			mem += n * n * 48 // FIFO state per directed link that carried a message
		}
	} else if !s.Latency.Constant() {
		mem += n * 16 // FIFO state of ring links
	}
	if s.Detector.Kind == "heartbeat" {
		mem += 9 * n * n // last heard and suspected, per ordered pair
	}
	inflight := e.InFlight
	if b := s.Budget.MaxInFlight; b > 0 {
		inflight = math.Min(inflight, float64(b)) // the budget stops it there
	}
	e.Memory = mem + inflight*float64(sim.PendingBytes(s.Latency.Constant()))
	return e
}

// load is the events and the peak of pending events of Estimate, which
// cost nothing to work out (no machine is built).
func (t Trial) load() Estimate {
	s, a, n := t.Spec, t.Algo.Alg, float64(t.Nodes)
	init := float64(1)
	switch {
	case a.StartsAll || s.Initiators.Mode == "all":
		init = n
	case s.Initiators.Mode == "random":
		init = math.Min(float64(s.Initiators.K), n)
	case s.Initiators.Mode == "list":
		init = math.Max(1, float64(len(s.Initiators.List)))
	}
	ordered := s.IDs.Mode == "ascending" || s.IDs.Mode == "descending"
	var e Estimate
	switch {
	case a.Quorum != nil:
		// Elections whose ballots cross (about N² events, N² pending at
		// worst), then the steady traffic until the deadline, since a
		// quorum algorithm never comes to rest: each process about one
		// message or timer per Steady period, and each message delivered
		// and answered or re-arming a timer. A trial the settling rule
		// ends (trial.Settling) without a fault runs about one window of
		// steady traffic, its election included, whose ballots cross less
		// (N²/4: measured 0.75–1.3× at N = 8 and 32, TestEstimateQuorumEvents).
		e.Events, e.InFlight = n*n+steadyEvents*n*float64(t.deadline())/float64(t.steady()), n*n
		if w := t.settleWindow(s.Latency.Mean()); w > 0 {
			e.Events = math.Min(e.Events, n*n/4+steadyEvents*n*float64(w)/float64(t.steady()))
		}
	case a.Topology.IsRing():
		// Every initiation sends one message around at most once; with
		// random ids the k-th highest initiator's travels about N/k hops
		// (harmonic sum), with ordered ids all of them may go round.
		// hs's doubling phases cost about 3·N·log₂N with random ids
		// (8·N·log₂N at worst), never more than the all-round figure.
		// Then one announcement round.
		hops := n * (1 + math.Log(init))
		if ordered {
			hops = init * n / 2
		}
		if a.Name == "hs" {
			hops = math.Min(math.Max(hops, 3*n*(1+math.Log2(n))), init*n)
		}
		e.Events = hops + 2*n
		// One message in flight per initiator's run (measured: lcr with
		// every process initiating holds N pending at its start), two
		// for hs, whose probes go both ways.
		e.InFlight = init
		if a.Name == "hs" {
			e.InFlight = 2 * init
		}
	default:
		// Complete graphs (bully, multicast): each process that starts an
		// election addresses every process above it, each of which answers
		// and starts its own at once, and the winner tells everyone: about
		// 2N² events (measured: multicast 2.0·N², bully 1.5–2.0·N² at N =
		// 16..256), up to 1.5·N² of them pending at one instant (bully, N =
		// 1024, uniform(1ms,5ms): 1.2–1.6 Mi).
		e.Events, e.InFlight = 2*n*n, 1.5*n*n
	}
	if s.Detector.Kind == "heartbeat" {
		// Every process pings every other each period, for a few periods.
		e.Events += 2 * n * n * 4
		e.InFlight += n * n
	}
	return e
}

// steadyEvents is the events of a quorum algorithm's steady traffic per
// process and Steady period, elections included: measured 2.8 (raft,
// etcd-raft) and 4.0 (chubby, zookeeper) at N = 8 and 32 with their
// defaults under uniform(1ms,5ms) (TestEstimateQuorumEvents), so every
// one is within 1.25× of this.
const steadyEvents = 3.4

// deadline is the virtual time the trial runs to at most.
func (t Trial) deadline() time.Duration {
	if t.Spec.Deadline > 0 {
		return t.Spec.Deadline
	}
	T := t.Spec.Latency.Mean()
	return trial.DeadlineFor(t.Algo.Alg, nodes.Config{Variant: t.Algo.Variant, Params: t.Algo.Params, N: t.Nodes, T: T, D: t.Spec.Latency.Bound()}, T)
}

// settleWindow is the window of the settling rule that ends t early
// (trial.Settling), for machines that read their parameters in unit (the
// plan's event estimate: the mean latency; a live trial's price comes from
// simulating it, LiveRun). It is 0 where the trial runs to its deadline,
// and where a crash, a fault or a link's own latency may delay its
// settling by an unknown time (the estimate then prices the deadline).
func (t Trial) settleWindow(unit time.Duration) time.Duration {
	s := t.Spec
	if len(s.Faults) > 0 || len(s.Crashes) > 0 || len(s.LinkLatency) > 0 {
		return 0
	}
	cfg := trial.Config{Algorithm: t.Algo.Alg, Latency: s.Latency, Detector: s.Detector, KeepRunning: s.KeepRunning}
	st, err := trial.NewSettling(&cfg, nodes.Config{Variant: t.Algo.Variant, Params: t.Algo.Params, N: t.Nodes, T: unit, D: cfg.BoundIn(unit)})
	if err != nil || st == nil {
		return 0
	}
	return st.Window()
}

// steady is a quorum algorithm's Steady period in t's configuration, or
// 5T where the algorithm does not say or its parameters are wrong (the
// plan's validation reports those).
func (t Trial) steady() time.Duration {
	T := t.Spec.Latency.Mean()
	if q := t.Algo.Alg.Quorum; q != nil && q.Steady != nil {
		d, err := q.Steady(nodes.Config{Variant: t.Algo.Variant, Params: t.Algo.Params, N: t.Nodes, T: T, D: t.Spec.Latency.Bound()})
		if err == nil && d > 0 {
			return d
		}
	}
	return max(5*T, 1)
}

// machineBytes is the size of one process's machine of algorithm a, as its
// constructor builds it (the struct itself: what a machine allocates as it
// runs is not counted).
func machineBytes(a Algo, n int) int {
	if a.Alg.External != nil {
		return externalProcessBytes
	}
	newMachine, err := a.Alg.New(nodes.Config{Variant: a.Variant, Params: a.Params, N: n, T: 1, D: 1})
	if err != nil {
		return 0 // Validate reports it
	}
	t := reflect.TypeOf(newMachine())
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return int(t.Size())
}

// Limits are what the plan guard holds a run to.
type Limits struct {
	MaxMemory int64 // bytes all trials running at once may use, with the plan itself
	Parallel  int   // trials run at once
}

// PlanError is a run refused before it started: the estimate and the limit
// it breaks.
type PlanError struct{ Msg string }

func (e *PlanError) Error() string { return e.Msg }

// planBytesPerTrial is what planning one trial costs before it runs: its
// Trial, its resume key and its share of the progress and shard tables.
const planBytesPerTrial = int64(unsafe.Sizeof(Trial{})) + 96

// CountTrials is how many trials specs plan, without planning them.
func CountTrials(specs []*Spec) int64 {
	var total int64
	for _, s := range specs {
		for _, a := range s.Algos {
			for _, n := range s.Nodes {
				if a.UpTo > 0 && n > a.UpTo {
					continue
				}
				total += int64(max(s.Trials, 0))
			}
		}
	}
	return total
}

// CheckPlan refuses, before anything is planned or run, a plan that
// cannot fit: more trials than memory can plan, a trial whose estimated
// events exceed its events budget (explicit, or the default scaled to N),
// or trials whose estimated memory, the largest Parallel of them at once,
// exceeds lim.MaxMemory. Budgets left at their defaults do not lower the
// memory estimate: a trial that would be stopped by the default in-flight
// budget is refused rather than run to be stopped.
func CheckPlan(specs []*Spec, lim Limits) error {
	count := CountTrials(specs)
	if lim.MaxMemory > 0 && count > lim.MaxMemory/planBytesPerTrial {
		return &PlanError{fmt.Sprintf("the plan holds %s trials, about %s to plan before the first runs, more than --max-memory %s: ask for fewer --trials, sizes or algorithms",
			Count(float64(count)), SizeOf(float64(count)*float64(planBytesPerTrial)), SizeOf(float64(lim.MaxMemory)))}
	}
	type big struct {
		mem  float64
		what string
	}
	var mems []big
	for _, s := range specs {
		if s.Runtime == "live" {
			continue
		}
		for _, a := range s.Algos {
			if a.liveOnly() {
				continue // it runs live, as the spec's live trials do
			}
			for _, n := range s.Nodes {
				if a.UpTo > 0 && n > a.UpTo {
					continue
				}
				t := Trial{Spec: s, Algo: a, Nodes: n}
				e := t.Estimate()
				what := fmt.Sprintf("%s N=%d", a.Alg.Name, n)
				if s.Scenario != "" && s.Scenario != "adhoc" {
					what = s.Scenario + ": " + what
				}
				budget := trial.DefaultBudget(a.Alg, n, t.deadline(), s.Latency.Mean()).MaxEvents
				if s.Budget.MaxEvents > 0 {
					budget = s.Budget.MaxEvents
				}
				if e.Events > float64(budget) {
					return &PlanError{fmt.Sprintf("%s: estimated %s events a trial, more than --max-events %s: every trial would be stopped unfinished; choose a smaller N, or raise --max-events",
						what, Count(e.Events), Count(float64(budget)))}
				}
				if err := t.checkRounds(what); err != nil {
					return err
				}
				if lim.MaxMemory > 0 && e.Memory > float64(lim.MaxMemory) {
					return &PlanError{fmt.Sprintf("%s: estimated %s at its peak (%s events pending at once), more than --max-memory %s; choose a smaller N, raise --max-memory, or bound the events pending with --max-inflight",
						what, SizeOf(e.Memory), Count(e.InFlight), SizeOf(float64(lim.MaxMemory)))}
				}
				for range min(s.Trials, max(lim.Parallel, 1)) {
					mems = append(mems, big{e.Memory, what})
				}
			}
		}
	}
	if lim.MaxMemory <= 0 || lim.Parallel <= 1 {
		return nil
	}
	slices.SortFunc(mems, func(a, b big) int {
		switch {
		case a.mem > b.mem:
			return -1
		case a.mem < b.mem:
			return 1
		}
		return 0
	})
	var sum float64
	for _, m := range mems[:min(lim.Parallel, len(mems))] {
		sum += m.mem
	}
	if sum > float64(lim.MaxMemory) {
		return &PlanError{fmt.Sprintf("%d trials at once (--parallel %d) of %s and the next largest: estimated %s together, more than --max-memory %s; lower --parallel or raise --max-memory",
			lim.Parallel, lim.Parallel, mems[0].what, SizeOf(sum), SizeOf(float64(lim.MaxMemory)))}
	}
	return nil
}

// checkRounds refuses an algorithm of synchronous rounds
// (nodes.ModelRounds) whose run needs more time than the trial's deadline:
// time-slice N·v_min rounds, variable-speeds N·2^v_min + N, exponential
// in its smallest id (ALGORITHMS.md), plus up to N rounds for the last
// tick of a process's clock. Every trial would end unfinished. The figure
// is the algorithm's own reference turnaround on the arrangement of the
// first trial: random arrangements of 1..N all have the smallest id 1.
func (t Trial) checkRounds(what string) error {
	s, a := t.Spec, t.Algo.Alg
	if a.Model != nodes.ModelRounds || a.Theory == nil {
		return nil
	}
	ranks := s.IDs.Ranks(t.Nodes, TrialSeed(s.Seed, 0))
	th := a.Theory(nodes.TheoryInput{N: t.Nodes, Ranks: ranks, Initiators: trial.AllPositions(t.Nodes)})
	T := s.Latency.Mean()
	limit := float64(t.deadline()) / float64(max(T, 1))
	if th.Turnaround == 0 {
		return &PlanError{fmt.Sprintf("%s: its ids (smallest %s) make a run longer than can be worked out in rounds of T; choose smaller ids", what, ranks.At(ranks.Extreme(-1, nil)))}
	}
	if need := th.Turnaround + float64(t.Nodes); need > limit {
		return &PlanError{fmt.Sprintf("%s: a run of synchronous rounds needs %s T with the smallest id %s, beyond the deadline of %s T: every trial would end unfinished; choose smaller ids or raise --deadline",
			what, Count(need), ranks.At(ranks.Extreme(-1, nil)), Count(limit))}
	}
	return nil
}

// SizeOf prints bytes for people (2.5 GiB).
func SizeOf(b float64) string {
	if b >= math.MaxUint64 {
		return fmt.Sprintf("%.2g B", b)
	}
	return humanize.IBytes(uint64(b))
}

// Count prints a count, as 1.2e+10 once it is too long to read.
func Count(x float64) string {
	if x < 1e7 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2g", x)
}
