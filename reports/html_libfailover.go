package reports

import (
	"slices"
	"strings"
)

// libraryScenario says whether a scenario is one of the built-in files that
// run the election libraries (docs/LIBRARIES.md): hraft-* and k8s-lease-*.
func libraryScenario(name string) bool {
	return strings.HasPrefix(name, "hraft-") || strings.HasPrefix(name, "k8s-lease-")
}

// libraryCrashed says whether g is of a library scenario and has a trial
// whose fault schedule crashed a process: it has a failover to draw.
func libraryCrashed(g *reportGroup) bool {
	return g.libCrashed
}

// writeLibraryFailover draws, as Figure 16's panels are drawn, one
// empirical CDF of failover per library scenario whose leader crashed,
// one line per algorithm and variant: hashicorp-raft beside etcd-raft and
// raft under the same crash, k8s-lease under its own. A trial with no new
// leader by its deadline counts as never (∞): its line stops short of
// 100%. A scenario without a leader's crash (a pause, a partition) has no
// failover and no chart.
func writeLibraryFailover(p *page, groups []*reportGroup) error {
	var scenarios []string
	by := map[string][]downtime{}
	for _, g := range groups {
		if !libraryCrashed(g) {
			continue
		}
		d := downtime{label: algoLabel(g.Algorithm, g.Variant)}
		d.ms = slices.Clone(g.libMs)
		slices.Sort(d.ms)
		if !slices.Contains(scenarios, g.Scenario) {
			scenarios = append(scenarios, g.Scenario)
		}
		by[g.Scenario] = append(by[g.Scenario], d)
	}
	var svgs []string
	var rows [][]cell
	for _, s := range scenarios {
		var series []cdfSeries
		for _, d := range by[s] {
			series = append(series, cdfSeries{label: d.label, values: d.ms[:len(d.ms)-d.unfinished()], of: len(d.ms)})
			rows = append(rows, []cell{textCell(s), textCell(d.label), intCell(len(d.ms)), intCell(d.unfinished()),
				msCell(d.median()), msCell(d.quantile(0.99)), msCell(d.ms[len(d.ms)-1])})
		}
		svg, err := cdfChart(s, "failover, ms after the crash (log scale)", series, true)
		if err != nil {
			return err
		}
		if svg != "" {
			svgs = append(svgs, svg)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	p.section("library-failover", func() {
		p.h2("", txt("Failover of the election libraries"))
		p.note("The built-in scenarios of the election libraries (docs/LIBRARIES.md: hraft-*, k8s-lease-*) drawn as " +
			"Raft's Figure 16 is: from the leader's crash until the new leader is known (failover_s; a majority for " +
			"the quorum algorithms, every live process for k8s-lease), cumulative share of the trials against " +
			"milliseconds on a log axis, one line per algorithm; a trial with no new leader by its deadline never " +
			"reaches the line, which stops short of 100%.")
		p.figures(svgs)
		p.table("sortable", []string{"scenario", "algorithm", "trials", "no leader by the deadline",
			"median ms", "p99 ms", "worst ms"}, rows)
	})
	return nil
}
