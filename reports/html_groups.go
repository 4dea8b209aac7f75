package reports

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// The report reads its rows once, as a stream (Rows), and keeps of each
// what its sections draw: a group's samples of the figures it charts and
// its tallies, the failing trials it lists in full (at most MaxFailing
// per group), and nothing of the others. A row is 648 bytes against some
// 220 of CSV: a 104 MB results.csv of 470,000 rows held as rows was
// 455 MB of report.

// groupFigures are what the report keeps of one group's rows, each
// sample in the order of the rows (a mean sums in that order, so the
// figures are the same bits as over the rows).
type groupFigures struct {
	boundSet, boundMixed bool
	theoryBound          Opt[int64] // the rows' theory_bound when they agree (groupTheoryBound)

	timeouts     []float64 // of the rows without an error that saw their timers
	timeoutKinds map[string]int64
	timeoutTotal int64

	// failoverMs, detectMs, terms and splits are of the rows without an
	// error that set them (metricValues), for the failover section.
	failoverMs, detectMs, terms, splits []float64

	faults      []FaultWindow // the union of the rows' windows, in order of first appearance
	firstFaulty *Row          // the first row with a fault window

	expected                                       int  // trials not live as their scenario expects
	host, unsafe, violations, errs, notLive, wrong int  // algoVerdicts' tallies
	seen                                           bool // some row is not Unseen

	failing      int    // failing trials (isFailing)
	firstFailing int    // the index among all failing trials of the first of the group's
	listed       []*Row // its first failing trials, up to MaxFailing

	downtimeMs []float64 // raft-figure16 groups: failover in ms of the rows without an error, +Inf for none
	libCrashed bool      // a library scenario's group with a crash (libraryCrashed)
	libMs      []float64 // its rows with a crash: failover in ms, +Inf for none

	mutex mutexFigures

	ringArrangements []string             // a ring algorithm's arrangements, in order of first appearance
	ringMsgs         map[string][]float64 // messages of its rows without an error, by arrangement

	columns map[string][]float64 // disruption and signature columns (columnStat)
}

// mutexFigures are a group's mutual-exclusion figures (writeMutex).
type mutexFigures struct {
	safe                                    int
	entries, entry, exit, client, sync, thr []float64
	k                                       Opt[int64]
}

// reportReader gathers the report's figures from the rows as they are
// read.
type reportReader struct {
	opt     *HTMLOptions
	columns []string // columnStat's columns: the disruption ones and those the signatures bound

	sum     Summarizer
	index   map[groupKey]int
	figs    []*groupFigures
	tally   Tally
	delays  networkDelays
	outcome outcomes
	expect  expectations
}

func newReportReader(opt *HTMLOptions) *reportReader {
	rr := &reportReader{opt: opt, index: map[groupKey]int{},
		outcome: outcomes{by: map[string]int{}, trials: map[string]int{}},
		expect:  expectations{fails: map[string]int{}, first: map[string]string{}},
		delays:  networkDelays{by: map[float64]*delayAgg{}}}
	for _, c := range disruptionColumns {
		rr.columns = append(rr.columns, c.name)
	}
	for _, s := range opt.Signatures {
		if !slices.Contains(rr.columns, s.Column) {
			rr.columns = append(rr.columns, s.Column)
		}
	}
	return rr
}

// add takes what the report draws of r.
func (rr *reportReader) add(r *Row) {
	rr.sum.Add(r)
	rr.tally.Add(r)
	rr.delays.add(r)
	rr.outcome.add(r)
	rr.expect.add(r)
	k := groupKey{r.Algorithm, r.Variant, r.Runtime, r.Scenario, r.Nodes}
	gi, ok := rr.index[k]
	if !ok {
		gi = len(rr.figs)
		rr.index[k] = gi
		rr.figs = append(rr.figs, &groupFigures{timeoutKinds: map[string]int64{}, columns: map[string][]float64{}})
	}
	rr.figs[gi].add(r, rr)
}

// add takes what the report draws of r, a row of the group.
func (f *groupFigures) add(r *Row, rr *reportReader) {
	if !f.boundSet {
		f.boundSet, f.theoryBound = true, r.TheoryBound
	} else if r.TheoryBound != f.theoryBound {
		f.boundMixed = true
	}
	if r.Error == "" && !r.Unseen {
		f.timeouts = append(f.timeouts, float64(r.Timeouts))
	}
	for _, kc := range r.TimeoutsByKind {
		f.timeoutKinds[kc.Kind] += kc.N
	}
	f.timeoutTotal += r.Timeouts
	if !r.Unseen {
		f.seen = true
	}
	if rr.opt.Faults != nil {
		fw := rr.opt.Faults(r)
		if len(fw) > 0 && f.firstFaulty == nil {
			f.firstFaulty = copyRow(r)
		}
		for _, w := range fw {
			if !slices.Contains(f.faults, w) {
				f.faults = append(f.faults, w)
			}
		}
	}
	f.addVerdict(r, rr.opt.MaxFailing)
	f.mutex.add(r)
	if r.Error != "" {
		return // a trial that failed to run says nothing about the algorithm
	}
	f.failoverMs = appendValue(f.failoverMs, msOf(r.FailoverS))
	f.detectMs = appendValue(f.detectMs, msOf(r.DetectS))
	f.terms = appendValue(f.terms, optFloat(r.Terms))
	f.splits = appendValue(f.splits, optFloat(r.SplitVotes))
	for _, c := range rr.columns {
		if v, ok := r.Number(c); ok {
			f.columns[c] = appendValue(f.columns[c], Some(v))
		}
	}
	f.addScenarioFigures(r)
}

// addVerdict counts r in the verdicts and keeps it when it is one of the
// group's first failing trials.
func (f *groupFigures) addVerdict(r *Row, maxFailing int) {
	if isFailing(r) {
		f.failing++
		if len(f.listed) < maxFailing {
			f.listed = append(f.listed, copyRow(r))
		}
	}
	if r.ExpectedOutcome() {
		f.expected++
		return // shown apart, as expected (writeExpectedOutcomes)
	}
	switch {
	case r.SafetyViolations > 0 && r.Overruns.Get() > 0:
		f.host++ // outside the algorithm's model: the run blames the host
	case r.SafetyViolations > 0:
		f.unsafe++
		f.violations += r.SafetyViolations
	}
	switch {
	case r.Error != "":
		f.errs++
	case !r.Live:
		f.notLive++
	case !r.Correct && r.SafetyViolations == 0:
		f.wrong++
	}
}

// addScenarioFigures takes the figures of the sections particular to some
// scenarios and algorithms (Figure 16, the libraries' failover, the ring
// lecture) from r, a row without an error.
func (f *groupFigures) addScenarioFigures(r *Row) {
	downtime := math.Inf(1)
	if r.FailoverS.IsSet() {
		downtime = r.FailoverS.Get() * 1000
	}
	if figure16Name.MatchString(r.Scenario) {
		f.downtimeMs = append(f.downtimeMs, downtime)
	}
	if libraryScenario(r.Scenario) && strings.Contains(r.Faults, ":crash(") {
		f.libCrashed = true
		f.libMs = append(f.libMs, downtime)
	}
	if slices.Contains(ringLecture, r.Algorithm) && r.Runtime != "live" {
		label := cmpOr(r.Arrangement, "random")
		if f.ringMsgs == nil {
			f.ringMsgs = map[string][]float64{}
		}
		if _, ok := f.ringMsgs[label]; !ok {
			f.ringArrangements = append(f.ringArrangements, label)
		}
		f.ringMsgs[label] = append(f.ringMsgs[label], float64(r.Messages))
	}
}

func (m *mutexFigures) add(r *Row) {
	if r.SafetyViolations == 0 {
		m.safe++
	}
	if r.Entries.IsSet() {
		m.entries = append(m.entries, float64(r.Entries.Get()))
	}
	for _, c := range []struct {
		o  Opt[float64]
		to *[]float64
	}{{r.EntryMessages, &m.entry}, {r.ExitMessages, &m.exit}, {r.ClientDelayT, &m.client}, {r.SyncDelayT, &m.sync}, {r.Throughput, &m.thr}} {
		if c.o.IsSet() {
			*c.to = append(*c.to, c.o.Get())
		}
	}
	if r.VotingSet.IsSet() {
		m.k = r.VotingSet
	}
}

// msOf is a time in seconds in milliseconds.
func msOf(o Opt[float64]) Opt[float64] {
	if o.IsSet() {
		return Some(o.Get() * 1000)
	}
	return o
}

// copyRow is a row of the report's own: a stream hands each row in a
// place it reuses.
func copyRow(r *Row) *Row {
	c := *r
	return &c
}

// groups are the report's groups, in order of first appearance, with
// their figures and the failing trials listed (at most maxFailing, in the
// groups' order) and counted.
func (rr *reportReader) groups(maxFailing int) ([]*reportGroup, failures) {
	sum := rr.sum.Groups()
	out := make([]*reportGroup, len(sum))
	var fails failures
	for i, g := range sum {
		rg := &reportGroup{Group: g, groupFigures: rr.figs[i], values: rr.sum.tally[i].values, anchor: "g" + strconv.Itoa(i+1)}
		if rg.boundMixed {
			rg.theoryBound = Opt[int64]{}
		}
		rg.firstFailing = fails.total
		for j, r := range rg.listed {
			if len(fails.listed) >= maxFailing {
				break
			}
			fails.listed = append(fails.listed, &failing{row: r, group: rg, anchor: failingAnchor(fails.total + j)})
		}
		fails.total += rg.failing
		out[i] = rg
	}
	return out, fails
}

// tracedRows reads rows again for those of the trials the trace gave
// (the diagrams and the incidents' leadership time-lines), which the
// report shows with them: a few, known only once the trace is read.
func tracedRows(rows Rows, diagrams []*TraceTrial, leads map[groupKey]*TraceTrial) (map[traceKey]*Row, error) {
	want := map[traceKey]bool{}
	for _, t := range diagrams {
		want[t.key()] = true
	}
	for _, t := range leads {
		if t != nil {
			want[t.key()] = true
		}
	}
	out := map[traceKey]*Row{}
	if len(want) == 0 {
		return out, nil
	}
	err := rows(func(r *Row) error {
		if k := rowTraceKey(r); want[k] {
			out[k] = copyRow(r) // the last row of a trial, as a map of every row held
		}
		return nil
	})
	return out, err
}

// failures are the failing trials (isFailing): the first MaxFailing, which
// the report lists, and how many there are.
type failures struct {
	listed []*failing
	total  int
}

// failingAnchor is the anchor of the failing trial at index i among all
// of them, in the groups' order.
func failingAnchor(i int) string { return "trial-" + strconv.Itoa(i+1) }

// firstFailAnchor is the anchor of g's first failing trial, "" without one.
func (g *reportGroup) firstFailAnchor() string {
	if g.failing == 0 {
		return ""
	}
	return failingAnchor(g.firstFailing)
}

// networkDelays are the live rows' measured one-way delays by configured
// T (networkDeparture).
type networkDelays struct {
	by map[float64]*delayAgg
	ts []float64
}

type delayAgg struct{ means, p99s []float64 }

func (d *networkDelays) add(r *Row) {
	if r.Runtime != "live" || !r.DelayMeanS.IsSet() || !r.DelayP99S.IsSet() || !(r.TS > 0) {
		return
	}
	a := d.by[r.TS]
	if a == nil {
		a = &delayAgg{}
		d.by[r.TS] = a
		d.ts = append(d.ts, r.TS)
	}
	a.means, a.p99s = append(a.means, r.DelayMeanS.Get()), append(a.p99s, r.DelayP99S.Get())
}
