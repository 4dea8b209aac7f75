package reports

import "slices"

// hasMutex reports whether any row is a mutual-exclusion trial (its
// entries column is set).
func hasMutex(groups []*reportGroup) bool {
	return slices.ContainsFunc(groups, func(g *reportGroup) bool { return len(g.mutex.entries) > 0 })
}

// writeMutex is the mutual-exclusion section: per configuration, the
// figures the lecture compares the algorithms by (ALGORITHMS.md, "Mutual
// exclusion"), medians over the trials that set them.
func writeMutex(p *page, groups []*reportGroup) {
	if !hasMutex(groups) {
		return
	}
	p.h2("mutex", txt("Mutual exclusion"))
	p.note("Per configuration, medians over its trials: messages spent per entry and per exit (by the kinds each algorithm " +
		"spends to enter and to leave), client delay (request → entry) and synchronization delay (exit → the next entry " +
		"of a process already waiting) in T, exits per second, and Maekawa's voting set K. Safe: never two processes " +
		"in the section; live: every request entered by the deadline.")
	head := []string{"algorithm", "variant", "runtime", "scenario", "nodes", "trials", "safe %", "live %", "entries",
		"entry messages", "exit messages", "client delay (T)", "sync delay (T)", "throughput /s", "K", "theory_messages"}
	var rows [][]cell
	for _, g := range groups {
		m := &g.mutex
		entries, entry, exit, client, sync, thr, k, safe := m.entries, m.entry, m.exit, m.client, m.sync, m.thr, m.k, m.safe
		if len(entries) == 0 {
			continue
		}
		rows = append(rows, []cell{
			linkCell("#"+g.anchor, g.Algorithm), textCell(g.Variant), textCell(g.Runtime), textCell(g.Scenario),
			intCell(g.Nodes), intCell(g.Trials), floatCell(100*float64(safe)/float64(g.Trials), 1), floatCell(100*g.LiveShare, 1),
			optCell(describe(entries).Median, 1), optCell(describe(entry).Median, 2), optCell(describe(exit).Median, 2),
			optCell(describe(client).Median, 2), optCell(describe(sync).Median, 2), optCell(describe(thr).Median, 1),
			optInt(k), optInt(g.TheoryMessages),
		})
	}
	p.tableID("mutex-table", "sortable", head, rows)
}
