package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/reports"
)

func init() { commands = append(commands, newCompareCmd) }

// compareOptions are the flags of `electbench compare`.
type compareOptions struct {
	threshold   string
	alpha       float64
	format      string
	output      string
	baseHistory string
	last        int
}

func newCompareCmd() *cobra.Command {
	o := compareOptions{threshold: "5%", alpha: 0.05, last: 5}
	cmd := &cobra.Command{
		Use:   "compare BASE NEW | compare --base-history DIR [--last K] NEW",
		Short: "Compare two runs; exit 1 on a significant regression",
		Long: `Compare two sets of results (results.csv files, or directories holding one)
group by group — algorithm, variant, runtime, scenario, nodes — on verdicts
and on costs.

Verdicts: the shares of safe (no safety violation), live and correct trials,
tested with a two-sided Fisher exact test. Any safety violation in NEW in a
group whose BASE had none is a regression whatever the sample size; a share
that drops significantly is a regression.

Costs: the medians of messages, turnaround_t, turnaround_tm, decided_t and, where leaders
crash, detect_t and failover_t, tested with a two-sided Mann–Whitney U test.
A significant change of the median by more than --threshold is a regression
(an increase) or an improvement (a decrease). Groups with too few trials for
the test to ever be significant are reported as "cannot decide" with the
trials needed; identical samples are no change.

Significant means a Benjamini–Hochberg q-value at most --alpha, over the
comparison's tests that could reach --alpha at all: a sweep runs hundreds of
tests, and at p ≤ 0.05 each, runs of the same code under two seeds would
differ "significantly" somewhere most nights. When nothing changed, any
verdict at all then comes at most once in 1/--alpha comparisons; a change
that shows in many groups (every size of an algorithm) is found with a few
trials, one that shows in a single group of many needs more (p ≤ alpha/tests).
Each verdict prints its p and q.

With --base-history the base is the last K runs stored by run --history,
pooled, never NEW itself: a stored run is NEW when it is NEW's directory or
carries the run id of the manifest beside NEW's results (run --out DIR
--history H stores the same run in both). The runs pooled are named on
stderr.

Counterexamples: the hunts whose output lies in NEW's directory (hunt
--history, as a nightly job runs them inside its run's directory) are
compared with BASE's, or the last K stored in the history; a counterexample
none of them found (the same algorithm violating the same property the
same way) is a regression: "new counterexample: ..., shrunk to N=2, 0
faults: PATH".

The text report lists only what changed or could not be decided; --format
json writes every comparison, --format html a self-contained page. The
document goes to standard output, or to -o FILE (its format then follows
the file's extension, .json or .html, unless --format says otherwise; the
text verdicts still go to standard output).

Exit codes: 0 no significant regression, 1 a significant regression,
2 bad usage or input.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.baseHistory != "" {
				if len(args) != 1 {
					return badInputf("compare --base-history DIR takes one argument, NEW; got %d", len(args))
				}
				return nil
			}
			if len(args) != 2 {
				return badInputf("compare takes BASE and NEW; got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runCompare(cmd, args, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.threshold, "threshold", o.threshold, "least change of the median that counts, in percent (5 or 5%)")
	f.Float64Var(&o.alpha, "alpha", o.alpha, "significance level of the two-sided test")
	bindFormat(cmd, &o.format, "", documentFormats, "output (default: from -o FILE's extension, else text)")
	bindOutput(f, &o.output, "write the comparison to this file (in --format) instead of standard output")
	f.StringVar(&o.baseHistory, "base-history", "", "history directory (run --history) whose last runs are the base")
	f.IntVar(&o.last, "last", o.last, "with --base-history: how many of the latest runs to pool")
	return cmd
}

// parseThreshold reads a percentage, "5" or "5%", as a fraction.
func parseThreshold(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil || v < 0 || v != v {
		return 0, fmt.Errorf("--threshold %q: want a percentage such as 5 or 5%%", s)
	}
	return v / 100, nil
}

func runCompare(cmd *cobra.Command, args []string, o compareOptions) error {
	threshold, err := parseThreshold(o.threshold)
	if err != nil {
		return badInput(err)
	}
	if !(o.alpha > 0 && o.alpha < 1) {
		return badInputf("--alpha %v: want a level between 0 and 1", o.alpha)
	}
	format, err := documentFormat(o.format, o.output)
	if err != nil {
		return err
	}
	copt := reports.CompareOptions{Alpha: o.alpha, Threshold: threshold}
	base, newer := reports.NewCompareSide(copt), reports.NewCompareSide(copt)
	var baseName string
	if o.baseHistory != "" {
		if o.last < 1 {
			return badInputf("--last %d: want at least 1", o.last)
		}
		runs, err := reports.ReadHistory(o.baseHistory)
		if err != nil {
			return badInput(err)
		}
		if len(runs) == 0 {
			return badInputf("--base-history %s: no stored runs", o.baseHistory)
		}
		pooled, skipped, err := reports.BaseRuns(runs, args[0], o.last)
		if err != nil {
			return badInput(err)
		}
		if len(pooled) == 0 {
			return badInputf("--base-history %s: no stored run other than NEW (%s)", o.baseHistory, args[0])
		}
		if err := reports.ScanPooled(pooled, 0, base.Add); err != nil {
			return err
		}
		names := make([]string, len(pooled))
		for i, r := range pooled {
			names[i] = r.Name
		}
		note := ""
		if len(skipped) > 0 {
			note = fmt.Sprintf(" (left out %s: it is NEW)", skipped[0].Name)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "base: %d run(s) of %s pooled: %s%s\n", len(pooled), o.baseHistory, strings.Join(names, ", "), note)
		baseName = fmt.Sprintf("%s (%s)", o.baseHistory, strings.Join(names, ", "))
	} else {
		if baseName, err = scanResults(args[0], base.Add); err != nil {
			return err
		}
	}
	newName, err := scanResults(args[len(args)-1], newer.Add)
	if err != nil {
		return err
	}
	c := reports.CompareSides(base, newer)
	if c.Counterexamples, err = newCounterexamples(o, args, newName); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if o.output == "" || o.output == "-" {
		err = writeComparison(out, format, c, baseName, newName)
	} else {
		err = reports.WriteFileAtomic(o.output, func(w io.Writer) error { return writeComparison(w, format, c, baseName, newName) })
		if err == nil && format != "text" {
			err = reports.WriteCompareText(out, c)
		}
	}
	if err != nil {
		return err
	}
	if regs := c.Regressions(); len(regs) > 0 || len(c.Counterexamples) > 0 {
		names := make([]string, len(regs))
		for i := range regs {
			names[i] = regs[i].Name()
		}
		for _, n := range c.Counterexamples {
			names = append(names, n.String())
		}
		return failed(fmt.Errorf("%d significant regression(s): %s", len(names), strings.Join(names, "; ")))
	}
	return nil
}

func writeComparison(w io.Writer, format string, c reports.Comparison, baseName, newName string) error {
	switch format {
	case "json":
		return reports.WriteCompareJSON(w, c)
	case "html":
		return reports.WriteCompareHTML(w, c, baseName, newName)
	}
	return reports.WriteCompareText(w, c)
}
