package workloads

import (
	"strings"

	"github.com/electbench/electbench/reports"
)

// Signatures judges every condition of the specs' expect.columns on each
// algorithm, variant and size of rows it applies to, held or not, for the
// report's incident view (reports.Signature), which sets each beside the
// figure it bounds. The verdicts are CheckRun's: a condition holds when
// CheckRun finds no failure of it.
func Signatures(specs []*Spec, rows []reports.Row) []reports.Signature {
	var out []reports.Signature
	for _, s := range specs {
		if len(s.Expect.Columns) == 0 {
			continue
		}
		order, by := groupRows(s.Scenario, rows)
		for _, g := range order {
			for _, c := range s.Expect.Columns {
				if !c.Applies(g.algo, g.variant) {
					continue
				}
				var bounds []string
				for _, b := range c.Bounds {
					bounds = append(bounds, b.String())
				}
				out = append(out, reports.Signature{Scenario: s.Scenario, Algorithm: g.algo, Variant: g.variant, Nodes: g.nodes,
					Column: c.Column, Condition: strings.Join(bounds, ", "), Held: len(checkColumn(c, by[g])) == 0})
			}
		}
	}
	return out
}
