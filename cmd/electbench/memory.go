package main

import (
	"fmt"
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

// summarizeResults reads the rows of a results file once, as a stream,
// for the summary and the counts a run's end prints: what it keeps of a
// row is its figures (reports.Summarizer), not the row. A run read its
// rows back whole before, three times the file (a 104 MB results.csv of
// 470,000 rows took a run's end to 575 MB).
func summarizeResults(rows reports.Rows) ([]reports.Group, reports.Tally, error) {
	var s reports.Summarizer
	var tally reports.Tally
	err := rows(func(r *reports.Row) error {
		s.Add(r)
		tally.Add(r)
		return nil
	})
	return s.Groups(), tally, err
}
