package workloads

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// Shard names part K of M (1 ≤ K ≤ M) of a plan, for sweeps that run on
// several machines: `electbench run ... --shard K/M` runs exactly the
// trials that AssignShards gives part K, and `electbench merge` puts the
// parts back together in plan order.
type Shard struct{ K, M int }

func (s Shard) String() string { return strconv.Itoa(s.K) + "/" + strconv.Itoa(s.M) }

// MaxShards bounds M.
const MaxShards = 10000

// ParseShard reads K/M.
func ParseShard(s string) (Shard, error) {
	k, m, ok := strings.Cut(strings.TrimSpace(s), "/")
	K, err1 := strconv.Atoi(k)
	M, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want K/M, such as 2/8", s)
	}
	if M < 1 || M > MaxShards || K < 1 || K > M {
		return Shard{}, fmt.Errorf("shard %q: want 1 ≤ K ≤ M ≤ %d", s, MaxShards)
	}
	return Shard{K, M}, nil
}

// Cost estimates the work of a trial, for balancing shards and the ETA: a
// simulated trial's estimated events (Estimate); a live trial's wall time
// in µs: 25 ms a process to start, 1.2 ms a directed link to make (its
// handshake), its run (LiveRun), and 100 ms + 2 ms a process of the
// harness's own (a kept cluster's reset, the teardown, the record).
// Measured: processes 20–30 ms each, linking 1.0–1.5 ms a link (raft);
// trials on kept processes 0.65 s at N = 64 (raft, T = 1 ms, run 0.41 s)
// and 0.3–0.6 s at N = 5 and 16 (chang-roberts, T = 10 ms, runs 0.12 and
// 0.38 s).
func (t Trial) Cost(live bool) float64 {
	return Costs(context.Background(), []Trial{t}, live)[0]
}

// simCost is Cost of a simulated trial: its estimated events.
func (t Trial) simCost() float64 { return t.load().Events }

func (t Trial) liveCost(run time.Duration) float64 {
	return 1e5 + 2e3*float64(t.Nodes) + t.LiveSetupCost() + float64(run/time.Microsecond)
}

// Costs is Cost of each trial, simulating a live trial's run once for
// every trial of its algorithm and size in a scenario (LiveRun is the
// same for them). Once ctx is done, live runs are priced at nothing.
func Costs(ctx context.Context, trials []Trial, live bool) []float64 {
	type class struct {
		spec        *Spec
		algo, param string
		nodes       int
	}
	runs := map[class]time.Duration{}
	out := make([]float64, len(trials))
	for i, t := range trials {
		if !live {
			out[i] = t.simCost()
			continue
		}
		k := class{t.Spec, t.Algo.Alg.Name + "/" + t.Algo.Variant, fmt.Sprint(t.Algo.Params), t.Nodes}
		run, ok := runs[k]
		if !ok {
			run = t.LiveRun(ctx)
			runs[k] = run
		}
		out[i] = t.liveCost(run)
	}
	return out
}

// liveRunEvents bounds the simulation LiveRun makes: a trial busier than
// that (steady traffic kept running for a long deadline) is priced at its
// deadline.
const liveRunEvents = 1 << 21

// LiveRun estimates how long a live trial runs once its cluster is up:
// how long the first trial of its algorithm and size lasts on the
// simulator with its machines reading their parameters in the live unit
// (trial.LiveUnit), the timing model the two runtimes share. That is its
// election, a quorum algorithm's settling window after it (or its
// deadline where the rule does not apply), a token ring's deadline. The
// live run adds what the host's processing adds to each delay, which the
// ETA learns from the trials that finish. Minted identities (pow) are
// placed at random for it. It is 0 for an external program, which the
// simulator does not run, the deadline for a live-only algorithm, where the simulation fails, and once ctx is
// done (an interrupt while the run is planned).
func (t Trial) LiveRun(ctx context.Context) time.Duration {
	if t.Algo.Alg.External != nil {
		return 0
	}
	first := t
	first.Trial, first.Seed = 0, TrialSeed(t.Spec.Seed, 0)
	ids := t.Spec.IDs
	if ids.Mode == "pow" {
		ids = IDs{Mode: "random"}
	}
	cfg := first.config(ids)
	cfg.Unit = trial.LiveUnit(cfg.T(), 0)
	if t.Algo.Alg.LiveOnly != "" {
		// The simulator cannot run it; a quorum algorithm without a
		// settling window runs to its deadline.
		return cfg.DeadlineOrDefault()
	}
	cfg.Budget.MaxEvents = min(cfg.BudgetOrDefault().MaxEvents, liveRunEvents)
	rec, err := sim.RunContext(ctx, cfg)
	if _, over := errors.AsType[*trial.BudgetError](err); over {
		return cfg.DeadlineOrDefault()
	}
	if rec == nil || err != nil {
		return 0
	}
	return rec.End
}

// LiveSetupCost is the part of Cost(true) that starts the cluster's
// processes and links them: what a trial run on the processes a previous
// trial kept does not pay (KeepsProcesses).
func (t Trial) LiveSetupCost() float64 {
	return 2.5e4*float64(t.Nodes) + 1.2e3*t.liveLinks()
}

// WarmSetupCost is the part of LiveSetupCost that a trial run on the
// processes prev kept (KeepsProcesses, the same size) still pays: the
// links it needs beyond prev's, as a complete graph after a ring (whose
// kept processes hold only the ring's links).
func (t Trial) WarmSetupCost(prev Trial) float64 {
	return 1.2e3 * max(0, t.liveLinks()-prev.liveLinks())
}

// liveLinks is the number of directed links a live trial's topology
// makes.
func (t Trial) liveLinks() float64 {
	return float64(t.Nodes * t.Algo.Alg.Topology.Degree(t.Nodes))
}

// KeepsProcesses reports whether a live trial like t, run cleanly, leaves
// its node processes linked for the next trial of its size (the live
// harness's warm clusters): a built-in algorithm, with no crash and no
// process fault (a crashed, restarted or paused process is not kept).
func (t Trial) KeepsProcesses() bool {
	if t.Algo.Alg.External != nil || len(t.Spec.Crashes) > 0 {
		return false
	}
	for i := range t.Spec.Faults {
		if k, ok := chaos.LookupKind(t.Spec.Faults[i].Kind); !ok || k.Class == chaos.ProcessFault {
			return false
		}
	}
	return true
}

// AssignShards assigns each trial of a plan (given by its estimated costs,
// in plan order) to one of m shards, 1..m, balancing the estimated cost:
// trials in decreasing cost (ties in plan order) each go to the shard with
// the least cost so far (ties to the lowest shard), the classic
// longest-processing-time rule. The assignment depends only on the costs
// and m, so every shard of a run computes the same one.
func AssignShards(costs []float64, m int) []int {
	order := make([]int, len(costs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case costs[a] > costs[b]:
			return -1
		case costs[a] < costs[b]:
			return 1
		}
		return 0
	})
	load := make([]float64, m)
	out := make([]int, len(costs))
	for _, i := range order {
		best := 0
		for s := 1; s < m; s++ {
			if load[s] < load[best] {
				best = s
			}
		}
		load[best] += costs[i]
		out[i] = best + 1
	}
	return out
}

// Part is the part of plan that shard s runs: the test a trial passes when
// it is the part's (by Trial.Index, its place in the plan), the plan's
// costs it was split by (PlanCosts, by AssignShards) and the part's
// places as IndexRanges, which a manifest records.
func (s Shard) Part(plan []Trial) (in func(Trial) bool, costs []float64, ranges string) {
	costs = PlanCosts(context.Background(), plan)
	mine := map[int]bool{}
	var idx []int
	for i, k := range AssignShards(costs, s.M) {
		if k == s.K {
			idx = append(idx, i)
			mine[plan[i].Index] = true
		}
	}
	return func(t Trial) bool { return mine[t.Index] }, costs, IndexRanges(idx)
}

// PlanCosts is Costs of each trial of a plan, the simulated and the live
// ones each priced as they run.
func PlanCosts(ctx context.Context, plan []Trial) []float64 {
	costs := make([]float64, len(plan))
	for _, live := range []bool{false, true} {
		var at []int
		var trials []Trial
		for i, t := range plan {
			if t.Live == live {
				at, trials = append(at, i), append(trials, t)
			}
		}
		for k, c := range Costs(ctx, trials, live) {
			costs[at[k]] = c
		}
	}
	return costs
}

// IndexRanges writes plan indices (ascending) compactly: "0-4,9,12-20".
func IndexRanges(idx []int) string {
	var b strings.Builder
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(idx[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(idx[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ParseIndexRanges reads IndexRanges' form back, refusing anything out of
// 0..total-1, out of order or repeated.
func ParseIndexRanges(s string, total int) ([]int, error) {
	var out []int
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("trial indices %q: %q is not a number", shortText(s), lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("trial indices %q: bad range %q", shortText(s), part)
			}
		}
		if a < 0 || b >= total || len(out) > 0 && a <= out[len(out)-1] {
			return nil, fmt.Errorf("trial indices %q: %q is out of order or outside 0..%d", shortText(s), part, total-1)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

func shortText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
