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

// readBack is what a run's end (and merge's) keeps of the rows it reads
// back from results.csv, in one pass: the summary's figures, the counts,
// the failing trials its table lists and the node programs' errors, not
// the rows. A run read its rows back whole before, three times the file
// (a 104 MB results.csv of 470,000 rows took a run's end to 575 MB). A
// fresh run takes the rows as its writer hands them on, as the file reads
// back (reports.WriterOptions.Rows), rather than read the file (issue 42:
// decoding it was a tenth of a sweep's CPU); a resumed run and merge read
// the file. Both add each row (add), then end.
type readBack struct {
	summer   reports.Summarizer
	sum      []reports.Group // from end
	tally    reports.Tally
	failing  reports.FailingTrials
	nodeErrs nodeErrors
}

// newReadBack makes an empty readBack; replay gives the command that runs
// a listed failing trial again.
func newReadBack(replay func(*reports.Row) string) *readBack {
	return &readBack{failing: reports.FailingTrials{Limit: failingTrialsShown, Replay: replay, IDs: rowIDs}}
}

// add takes the next row of results.csv, as the file holds it.
func (rb *readBack) add(r *reports.Row) {
	rb.summer.Add(r)
	rb.tally.Add(r)
	rb.failing.Add(r)
	rb.nodeErrs.add(r)
}

// end makes the summary of the rows added.
func (rb *readBack) end() { rb.sum = rb.summer.Groups() }

// readResultsBack reads rows once for a readBack.
func readResultsBack(rows reports.Rows, replay func(*reports.Row) string) (*readBack, error) {
	rb := newReadBack(replay)
	err := rows(func(r *reports.Row) error {
		rb.add(r)
		return nil
	})
	rb.end()
	return rb, err
}
