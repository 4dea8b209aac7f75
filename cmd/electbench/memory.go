package main

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/electbench/electbench/internal/hostmem"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// defaultMemoryShare is --max-memory's default: the share of the machine's
// memory (or its container's limit) a run may plan to use, leaving the rest
// to the system and to what the estimates miss.
const defaultMemoryShare = 75

// fallbackMemory stands for the machine's memory where the host does not
// say how much it has.
const fallbackMemory = 8 << 30

// parseMaxMemory reads --max-memory: bytes with a unit (512MiB, 16GiB,
// 20GB) or a share of the machine's memory (50%); "" is the default share.
func parseMaxMemory(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = strconv.Itoa(defaultMemoryShare) + "%"
	}
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || p <= 0 || p > 100 {
			return 0, fmt.Errorf("--max-memory %q: a share of the machine's memory is a number from 0 to 100 followed by %%", s)
		}
		total, ok := hostmem.Total()
		if !ok {
			total = fallbackMemory
		}
		return int64(float64(total) * p / 100), nil
	}
	b, err := humanize.ParseBytes(s)
	if err != nil || b == 0 {
		return 0, fmt.Errorf("--max-memory %q: want a size such as 512MiB, 16GiB or 20GB, or a share of the machine's memory such as 50%%", s)
	}
	if b < 64<<20 || b > 1<<62 {
		return 0, fmt.Errorf("--max-memory %q: want at least 64MiB", s)
	}
	return int64(b), nil
}

// guardPlan refuses, with exit 2, a plan that cannot fit in --max-memory
// or --max-events (workloads.CheckPlan), and makes the limit the Go
// runtime's soft memory limit, so that the collector works harder rather
// than let the run outgrow it.
func guardPlan(o runOptions, specs []*workloads.Spec) error {
	limit, err := parseMaxMemory(o.maxMemory)
	if err != nil {
		return badInput(err)
	}
	if err := workloads.CheckPlan(specs, workloads.Limits{MaxMemory: limit, Parallel: workloads.Parallelism(o.parallel)}); err != nil {
		return badInput(err)
	}
	debug.SetMemoryLimit(limit)
	return nil
}

// heldRowsGCPercent is the collector's target (GOGC) once a command holds
// every row of a run: its heap is then mostly rows that stay live to the
// end, and the default of 100 lets garbage grow to as much again before a
// collection. A 104 MB results.csv (470,000 rows): report reached 783 MB
// max RSS at 100, 536 MB at 25, for 13% more CPU.
const heldRowsGCPercent = 25

// holdingRows lowers the collector's target while a command holds every
// row (read back from results.csv: report, and a run once its trials are
// done) and returns what restores it when the command ends (tests run
// commands in one process). Trials run before it: their garbage is most of
// what they allocate, and a lower target there would cost a collection
// every few trials.
func holdingRows() (restore func()) {
	old := debug.SetGCPercent(heldRowsGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// readRunRows reads back the rows a run wrote to dir's results.csv, for
// its summary and report, once its trials are done. The run keeps none
// while its trials run: held from the first trial, they were live through
// every collection of the trials' garbage, which the collector lets grow
// to as much again (a 470,000-trial run peaked at 1.49 GB, 623 MB reading
// them back; reading costs some 3 s of its 60). The trials' garbage is
// returned to the system first: spread over the heap, it cannot hold the
// rows' one allocation, which then came on top of it (844 MB).
func readRunRows(dir string) ([]reports.Row, error) {
	debug.FreeOSMemory()
	return reports.ReadFile(filepath.Join(dir, reports.ResultsCSV))
}
