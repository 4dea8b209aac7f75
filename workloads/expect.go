package workloads

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/reports"
)

// checkTrial judges one trial against a scenario's per-trial expectations
// and returns its expect column: "" when there are none, "pass" (or
// reports.ExpectNotLive, a pass that was expected not to be live), or
// "fail: " followed by every expectation that failed and what the trial did
// instead.
// faultFree is ALGORITHMS.md's figure for the configuration without faults,
// which "at-most theory*K" scales.
func checkTrial(e chaos.Expect, row *reports.Row, faultFree nodes.Theory) string {
	if !e.Safety && !e.Correct && e.Liveness == nil && !e.NotLive && e.LiveShare == 0 && e.Messages == nil {
		if e.OverTrials() {
			return "pass" // judged over the trials by CheckRun
		}
		return ""
	}
	T := time.Duration(math.Round(row.TS * 1e9))
	var fails []string
	if e.Safety && row.SafetyViolations > 0 {
		fails = append(fails, fmt.Sprintf("safety always: %d violation(s), first %s", row.SafetyViolations, row.Violation))
	}
	if e.Liveness != nil {
		bound := e.Liveness.Of(T)
		switch {
		case row.Error != "":
			fails = append(fails, "liveness within "+e.Liveness.Text+": the trial failed: "+row.Error)
		case !row.Live:
			why := row.Violation
			if why == "" {
				why = "no leader agreed"
			}
			fails = append(fails, "liveness within "+e.Liveness.Text+": not live ("+why+")")
		case !row.DecidedS.IsSet():
			fails = append(fails, "liveness within "+e.Liveness.Text+": no common leader was decided")
		case time.Duration(math.Round(row.DecidedS.Get()*1e9)) > bound:
			fails = append(fails, fmt.Sprintf("liveness within %s: decided after %s", e.Liveness.Text, inT(row.DecidedS.Get(), row.DecidedT)))
		}
	}
	if e.LiveShare > 0 && row.Error != "" {
		fails = append(fails, "liveness at-least "+e.LiveShareText+": the trial failed: "+row.Error)
	}
	if e.NotLive {
		switch {
		case row.Error != "":
			fails = append(fails, "liveness never: the trial failed: "+row.Error)
		case row.Live:
			fails = append(fails, "liveness never: the trial was live (leader "+row.Leader+")")
		}
	}
	// After liveness: a trial that is not live is not correct either, and
	// its first failure is then the liveness one, the story it tells.
	if e.Correct && !row.Correct {
		fails = append(fails, "correct always: "+incorrect(row))
	}
	if c := e.Messages; c != nil {
		limit, what := c.Max, c.Text
		if c.Theory > 0 {
			fig := faultFree.Messages
			if fig == 0 {
				fig = faultFree.Bound
			}
			if fig == 0 {
				fails = append(fails, "messages "+what+": ALGORITHMS.md gives no figure for this configuration")
				limit = -1
			} else {
				limit = int64(math.Floor(c.Theory * float64(fig)))
				what += fmt.Sprintf(" = %d", limit)
			}
		}
		if limit >= 0 && !row.Unseen && row.Messages > limit {
			fails = append(fails, fmt.Sprintf("messages %s: sent %d", what, row.Messages))
		}
	}
	if len(fails) == 0 {
		if (e.NotLive || e.LiveShare > 0) && !row.Live {
			return reports.ExpectNotLive
		}
		return "pass"
	}
	return "fail: " + strings.Join(fails, "; ")
}

// incorrect says why a trial is not correct: its first recorded
// violation, or, in a trial that recorded none (safe and live), the
// leader every live process decided, which the checker does not take
// for rightful (it crashed, or a live process outranks it).
func incorrect(row *reports.Row) string {
	switch {
	case row.Error != "":
		return "the trial failed: " + row.Error
	case row.Violation != "":
		return "not correct, first " + row.Violation
	case row.Leader != "":
		return "every live process decided " + row.Leader + ", not the rightful leader (it is down, or a live process outranks it)"
	}
	return "no common leader was decided"
}

// inT formats a time in seconds with its value in units of T.
func inT(s float64, t reports.Opt[float64]) string {
	out := time.Duration(math.Round(s * 1e9)).Round(time.Microsecond).String()
	if t.IsSet() {
		out += " (" + strconv.FormatFloat(math.Round(t.Get()*100)/100, 'f', -1, 64) + "T)"
	}
	return out
}

// Failure is one failed expectation.
type Failure struct {
	Scenario  string
	Algorithm string // name, and /variant when it is not the default
	Nodes     int
	Trial     int    // -1 when judged over the trials of an algorithm and size
	Trials    int    // for a judgement over trials: how many
	Seed      uint64 // the trial's seed (over trials: the slowest trial's)
	What      string // the expectation and what happened instead
}

func (f Failure) String() string {
	if f.Trial < 0 {
		return fmt.Sprintf("%s: %s N=%d over %d trials: %s", f.Scenario, f.Algorithm, f.Nodes, f.Trials, f.What)
	}
	return fmt.Sprintf("%s: %s N=%d trial %d (seed %d): %s", f.Scenario, f.Algorithm, f.Nodes, f.Trial, f.Seed, f.What)
}

// ExpectedRows reads the rows CheckRun and Signatures judge: those of the
// specs' scenarios that expect something, in order. A run's end reads its
// results.csv so rather than holding every row (a sweep's 470,000 rows
// were 305 MB); without any expectation it reads nothing.
func ExpectedRows(specs []*Spec, rows reports.Rows) ([]reports.Row, error) {
	judged := map[string]bool{}
	for _, s := range specs {
		if !s.Expect.IsZero() {
			judged[s.Scenario] = true
		}
	}
	if len(judged) == 0 {
		return nil, nil
	}
	var out []reports.Row
	err := rows(func(r *reports.Row) error {
		if judged[r.Scenario] {
			out = append(out, *r)
		}
		return nil
	})
	return out, err
}

// CheckRun finds every failed expectation of the specs in rows (all rows
// of a results file, resumed ones included): the per-trial verdicts of the
// expect column, then the expectations over trials (turnaround
// percentiles) per algorithm, variant and size. Rows of other scenarios
// are ignored.
func CheckRun(specs []*Spec, rows []reports.Row) []Failure {
	var out []Failure
	for _, s := range specs {
		if s.Expect.IsZero() {
			continue
		}
		for _, r := range rows {
			if what, ok := strings.CutPrefix(r.Expect, "fail: "); ok && r.Scenario == s.Scenario {
				out = append(out, Failure{Scenario: r.Scenario, Algorithm: algoName(r), Nodes: r.Nodes, Trial: r.Trial, Seed: r.Seed, What: what})
			}
		}
		order, by := groupRows(s.Scenario, rows)
		for _, g := range order {
			var fails []Failure
			if p := s.Expect.Turnaround; p != nil {
				if f, ok := checkTurnaround(p, by[g]); !ok {
					fails = append(fails, f)
				}
			}
			if s.Expect.LiveShare > 0 {
				if f, ok := checkLiveShare(s.Expect, by[g]); !ok {
					fails = append(fails, f)
				}
			}
			for _, c := range s.Expect.Columns {
				if c.Applies(g.algo, g.variant) {
					fails = append(fails, checkColumn(c, by[g])...)
				}
			}
			for _, f := range fails {
				f.Scenario = s.Scenario
				out = append(out, f)
			}
		}
	}
	return out
}

// rowGroup is one configuration of a scenario's rows: the trials that
// expectations over trials judge together.
type rowGroup struct {
	algo, variant string
	nodes         int
}

// groupRows gathers the rows of scenario by algorithm, variant and size,
// the groups in the order of their first row.
func groupRows(scenario string, rows []reports.Row) (order []rowGroup, by map[rowGroup][]reports.Row) {
	by = map[rowGroup][]reports.Row{}
	for _, r := range rows {
		if r.Scenario != scenario || r.Unjudged() {
			continue // an unjudged trial counts in no expectation over trials either
		}
		g := rowGroup{r.Algorithm, r.Variant, r.Nodes}
		if _, ok := by[g]; !ok {
			order = append(order, g)
		}
		by[g] = append(by[g], r)
	}
	return order, by
}

// checkColumn judges a condition of expect.columns over a group's trials,
// those whose cell is empty left out: one failure per bound that does not
// hold, with the median, the range and the extreme trials' seeds.
func checkColumn(c chaos.ColumnCondition, rows []reports.Row) []Failure {
	type trial struct {
		v   float64
		row reports.Row
	}
	var ts []trial
	for _, r := range rows {
		if v, ok := r.Number(c.Column); ok {
			ts = append(ts, trial{v, r})
		}
	}
	fail := Failure{Algorithm: algoName(rows[0]), Nodes: rows[0].Nodes, Trial: -1, Trials: len(rows)}
	if len(ts) == 0 {
		fail.What = fmt.Sprintf("%s: %s is empty in every trial", c, c.Column)
		return []Failure{fail}
	}
	slices.SortStableFunc(ts, func(a, b trial) int { return cmp.Compare(a.v, b.v) })
	// The extremes' trials: the first (in plan order) with each value.
	lo := ts[0]
	hi := ts[slices.IndexFunc(ts, func(x trial) bool { return x.v == ts[len(ts)-1].v })]
	mid := ts[len(ts)/2].v
	if len(ts)%2 == 0 {
		mid = (ts[len(ts)/2-1].v + mid) / 2
	}
	stat := map[chaos.Stat]float64{chaos.Median: mid, chaos.Min: lo.v, chaos.Max: hi.v}
	var out []Failure
	for _, b := range c.Bounds {
		if got := stat[b.Stat]; !b.Cmp.Holds(got) {
			f := fail
			f.Seed = lo.row.Seed
			if b.Stat != chaos.Min {
				f.Seed = hi.row.Seed
			}
			f.What = fmt.Sprintf("%s %s %s: the %s is %s (median %s, min %s in trial %d seed %d, max %s in trial %d seed %d, over %d trials with a value)",
				c.Column, b.Stat, b.Cmp.Text, b.Stat, reports.FormatFloat(got), reports.FormatFloat(mid),
				reports.FormatFloat(lo.v), lo.row.Trial, lo.row.Seed, reports.FormatFloat(hi.v), hi.row.Trial, hi.row.Seed, len(ts))
			out = append(out, f)
		}
	}
	return out
}

func algoName(r reports.Row) string {
	if r.Variant == "" || r.Variant == "default" {
		return r.Algorithm
	}
	return r.Algorithm + "/" + r.Variant
}

// checkTurnaround judges "pQ < D" over a group's trials: the nearest-rank
// percentile, a trial without a turnaround counting as infinitely slow.
func checkTurnaround(p *chaos.Percentile, rows []reports.Row) (Failure, bool) {
	type trial struct {
		s   float64
		row reports.Row
	}
	ts := make([]trial, len(rows))
	for i, r := range rows {
		v := math.Inf(1)
		if r.TurnaroundS.IsSet() && r.Error == "" {
			v = r.TurnaroundS.Get()
		}
		ts[i] = trial{v, r}
	}
	slices.SortStableFunc(ts, func(a, b trial) int {
		switch {
		case a.s < b.s:
			return -1
		case a.s > b.s:
			return 1
		}
		return 0
	})
	k := int(math.Ceil(p.Q/100*float64(len(ts)))) - 1
	k = min(max(k, 0), len(ts)-1)
	T := time.Duration(math.Round(rows[0].TS * 1e9))
	bound := p.Below.Of(T).Seconds()
	got := ts[k]
	if got.s < bound {
		return Failure{}, true
	}
	slowest := ts[len(ts)-1].row
	seen := "never finished"
	if !math.IsInf(got.s, 1) {
		seen = inT(got.s, reports.Some(got.s/rows[0].TS))
	}
	return Failure{
		Algorithm: algoName(rows[0]), Nodes: rows[0].Nodes, Trial: -1, Trials: len(rows), Seed: slowest.Seed,
		What: fmt.Sprintf("turnaround %s: p%s is %s (slowest: trial %d, seed %d)",
			p.Text, strconv.FormatFloat(p.Q, 'f', -1, 64), seen, slowest.Trial, slowest.Seed),
	}, false
}

// checkLiveShare judges "liveness: at-least P%" over a group's trials.
func checkLiveShare(e chaos.Expect, rows []reports.Row) (Failure, bool) {
	live := 0
	for _, r := range rows {
		if r.Live {
			live++
		}
	}
	if float64(live) >= e.LiveShare*float64(len(rows)) {
		return Failure{}, true
	}
	r := rows[0]
	return Failure{Algorithm: algoName(r), Nodes: r.Nodes, Trial: -1, Trials: len(rows), Seed: r.Seed,
		What: fmt.Sprintf("liveness at-least %s: %d of %d trials live (%.1f%%)", e.LiveShareText, live, len(rows), 100*float64(live)/float64(len(rows)))}, false
}
