package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/workloads"
)

// longRun is the estimated wall time past which a run says so before it
// starts (with --dry-run's command, to see the plan first).
const longRun = 10 * time.Minute

// planGroup is one configuration of a plan: its trials and what one costs.
type planGroup struct {
	scenario, algo, runtime string
	nodes, trials           int
	events, memory          float64 // a trial's (Trial.Estimate)
}

// planCost is the part of the plan this run executes (its shard) priced
// by workloads.EstimatePlan.
func planCost(cmd *cobra.Command, p *runPlan, o runOptions) ([]workloads.Trial, workloads.PlanCost) {
	// The part is the plan itself unless a trial is left out, and then a
	// copy of its size: a 470,000-trial plan (39 MB) copied by appending
	// came to 94 MB beside it as a run started (issue 39).
	mine, n := p.trials, 0
	for _, t := range p.trials {
		if p.inShard(t) {
			n++
		}
	}
	if n < len(p.trials) {
		mine = make([]workloads.Trial, 0, n)
		for _, t := range p.trials {
			if p.inShard(t) {
				mine = append(mine, t)
			}
		}
	}
	return mine, workloads.EstimatePlan(cmd.Context(), mine, workloads.Parallelism(o.parallel))
}

// warnLong says, before a run estimated past longRun starts, how long it
// is expected to take; it never stops the run (false).
func warnLong(cmd *cobra.Command, p *runPlan, o runOptions) bool {
	if o.resume {
		return false // what is left is known only to the run
	}
	if _, c := planCost(cmd, p, o); c.Wall > longRun {
		fmt.Fprintf(cmd.ErrOrStderr(), "this run is estimated at about %s (%d trials); --dry-run shows its plan and costs\n",
			c.Wall.Round(time.Minute), c.Trials)
	}
	return false
}

// previewPlan prints the plan's groups, costliest first, and its totals,
// and runs nothing (run --dry-run).
func previewPlan(cmd *cobra.Command, p *runPlan, o runOptions) error {
	trials, c := planCost(cmd, p, o)
	groups := map[string]*planGroup{}
	var order []*planGroup
	for _, t := range trials {
		rt := "sim"
		if t.Live {
			rt = "live"
		}
		key := fmt.Sprintf("%s\x00%s/%s\x00%s\x00%d", t.Spec.Scenario, t.Algo.Alg.Name, t.Algo.Variant, rt, t.Nodes)
		g := groups[key]
		if g == nil {
			e := t.Estimate()
			g = &planGroup{scenario: t.Spec.Scenario, algo: t.Algo.Alg.Name + "/" + t.Algo.Variant, runtime: rt, nodes: t.Nodes, events: e.Events, memory: e.Memory}
			groups[key] = g
			order = append(order, g)
		}
		g.trials++
	}
	slices.SortStableFunc(order, func(a, b *planGroup) int {
		return cmp.Compare(b.events*float64(b.trials), a.events*float64(a.trials))
	})
	return writePreview(cmd.OutOrStdout(), order, c, o)
}

// previewRows is how many groups the preview lists.
const previewRows = 20

func writePreview(w io.Writer, order []*planGroup, c workloads.PlanCost, o runOptions) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\talgorithm\truntime\tN\ttrials\tevents/trial\tmemory/trial\t")
	for i, g := range order {
		if i == previewRows {
			fmt.Fprintf(tw, "… and %d more groups\t\t\t\t\t\t\t\n", len(order)-i)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t\n", g.scenario, g.algo, g.runtime, g.nodes, g.trials, workloads.Count(g.events), workloads.SizeOf(g.memory))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	trace := "no --trace"
	if o.trace != "" {
		trace = "trace about " + workloads.SizeOf(c.TraceBytes)
	}
	_, err := fmt.Fprintf(w, "\n%d groups, %d trials (%d live): about %s events, %s at --parallel %d (a prior of this machine class; the run's ETA measures), peak memory about %s, %s\n",
		len(order), c.Trials, c.Live, workloads.Count(c.Events), roundWall(c.Wall), workloads.Parallelism(o.parallel), workloads.SizeOf(c.PeakMemory), trace)
	return err
}

// roundWall rounds an estimate to what it can mean.
func roundWall(d time.Duration) string {
	switch {
	case d < time.Second:
		return "under a second"
	case d < time.Minute:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}
