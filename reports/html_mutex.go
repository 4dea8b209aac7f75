package reports

// hasMutex reports whether any row is a mutual-exclusion trial (its
// entries column is set).
func hasMutex(groups []*reportGroup) bool {
	for _, g := range groups {
		for _, r := range g.rows {
			if r.Entries.IsSet() {
				return true
			}
		}
	}
	return false
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
		var entries, entry, exit, client, sync, thr []float64
		k := Opt[int64]{}
		safe := 0
		for _, r := range g.rows {
			if r.SafetyViolations == 0 {
				safe++
			}
			if r.Entries.IsSet() {
				entries = append(entries, float64(r.Entries.Get()))
			}
			for _, c := range []struct {
				o  Opt[float64]
				to *[]float64
			}{{r.EntryMessages, &entry}, {r.ExitMessages, &exit}, {r.ClientDelayT, &client}, {r.SyncDelayT, &sync}, {r.Throughput, &thr}} {
				if c.o.IsSet() {
					*c.to = append(*c.to, c.o.Get())
				}
			}
			if r.VotingSet.IsSet() {
				k = r.VotingSet
			}
		}
		if len(entries) == 0 {
			continue
		}
		rows = append(rows, []cell{
			linkCell("#"+g.anchor, g.Algorithm), textCell(g.Variant), textCell(g.Runtime), textCell(g.Scenario),
			intCell(g.Nodes), intCell(g.Trials), floatCell(100*float64(safe)/float64(len(g.rows)), 1), floatCell(100*g.LiveShare, 1),
			optCell(describe(entries).Median, 1), optCell(describe(entry).Median, 2), optCell(describe(exit).Median, 2),
			optCell(describe(client).Median, 2), optCell(describe(sync).Median, 2), optCell(describe(thr).Median, 1),
			optInt(k), optInt(g.TheoryMessages),
		})
	}
	p.tableID("mutex-table", "sortable", head, rows)
}
