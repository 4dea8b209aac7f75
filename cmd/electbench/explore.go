package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newExploreCmd) }

// exploreOptions are the flags of `electbench explore`.
type exploreOptions struct {
	trial string
	out   string
}

func newExploreCmd() *cobra.Command {
	var o exploreOptions
	cmd := &cobra.Command{
		Use:   "explore TRACE|DIR [--trial ID] [-o FILE]",
		Short: "Write a step-through explorer of one traced trial: one self-contained HTML page",
		Long: `Write one HTML page that opens offline and steps through one trial of a trace
(run --trace FILE, or the trace.jsonl that run --trial and small live runs
keep in their directory): its message-sequence diagram with a cursor on one
event, a slider, play, pause, step back and forth, jumps to the next message,
decision or fault and to the violation, and each process's state at the
cursor (up, crashed or paused; believed leader; term; whether it takes part
in an election; the timers that fire next), filters by message kind.

Given a directory, its results give the trial's identities (lanes read
p4 (id 17)), T and its violation; given a trace file, the results.csv beside
it does, if there is one. --trial names the trial (as run --trial reads it:
SCENARIO/ALGORITHM/VARIANT/N/TRIAL) when the trace holds several.

The page goes beside the trace as explore-ALGORITHM-VARIANT-nN-tTRIAL.html
unless -o says otherwise (- for standard output).

Exit codes: 0 ok, 2 bad usage or input.`,
		Args: usageArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error { return runExplore(cmd, args[0], o) },
	}
	cmd.Flags().StringVar(&o.trial, "trial", "", "the trial to explore, SCENARIO/ALGORITHM/VARIANT/N/TRIAL (default: the trace's only one)")
	bindOutput(cmd.Flags(), &o.out, "page file (default: beside the trace; - for stdout)")
	return cmd
}

func runExplore(cmd *cobra.Command, arg string, o exploreOptions) error {
	tracePath := arg
	if st, err := os.Stat(arg); err != nil {
		return badInput(err)
	} else if st.IsDir() {
		tracePath = filepath.Join(arg, TraceFile)
		if !regularFile(tracePath) {
			return badInputf("%s holds no %s (run --trial and run --trace write one)", arg, TraceFile)
		}
	}
	x := reports.Explore{TraceName: tracePath, Generator: "electbench " + versionString(), Terms: hasTerms,
		Maintenance: htmlOptions("", nil).Maintenance, IDs: rowIDs}
	if o.trial != "" {
		ref, err := parseTrialID(o.trial)
		if err != nil {
			return badInput(err)
		}
		x.Select = func(h reports.TraceHeader) bool { return ref.matches(h) }
	}
	if p := filepath.Join(filepath.Dir(tracePath), reports.ResultsCSV); regularFile(p) {
		// Read as a stream once the trial is: only its row is kept.
		var read int
		x.Rows = resultsRows(p, &read)
	}
	f, err := os.Open(tracePath)
	if err != nil {
		if x.Rows != nil {
			if rerr := x.Rows(func(*reports.Row) error { return nil }); rerr != nil {
				return rerr // results that cannot be read are said first
			}
		}
		return badInput(err)
	}
	defer f.Close()
	x.Trace = f
	if o.out == "-" {
		return exploreError(reports.WriteExplore(cmd.OutOrStdout(), x), o.trial)
	}
	// The page is written whole in memory first: a trial that cannot be
	// read leaves no file behind.
	var page strings.Builder
	var name string
	sel := x.Select
	x.Select = func(h reports.TraceHeader) bool {
		ok := sel == nil || sel(h)
		if ok {
			name = fmt.Sprintf("explore-%s-%s-n%d-t%d.html", h.Algorithm, h.Variant, h.Nodes, h.Trial)
		}
		return ok
	}
	if err := exploreError(reports.WriteExplore(&page, x), o.trial); err != nil {
		return err
	}
	out := o.out
	if out == "" {
		out = filepath.Join(filepath.Dir(tracePath), strings.ReplaceAll(name, string(filepath.Separator), "_"))
	}
	if err := os.WriteFile(out, []byte(page.String()), 0o644); err != nil {
		return fmt.Errorf("writing the explorer page: %w", err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", out)
	return nil
}

// matches reports whether the trace header h is the trial ref names.
func (ref trialRef) matches(h reports.TraceHeader) bool {
	return h.Scenario == ref.scenario && h.Algorithm == ref.algorithm && h.Variant == ref.variant &&
		h.Nodes == ref.nodes && h.Trial == ref.trial && (ref.runtime == "" || ref.runtime == cmp.Or(h.Runtime, "sim"))
}

// exploreError marks a trace that cannot be read, or a --trial that names
// no trial of it (or a trace of several without --trial), as bad input.
func exploreError(err error, trial string) error {
	var te *reports.TraceError
	var ce *reports.TrialChoiceError
	switch {
	case errors.As(err, &ce) && ce.Chosen == 0 && trial != "":
		return badInputf("--trial %s: %w", trial, err)
	case errors.As(err, &te) || errors.As(err, &ce):
		return badInput(err)
	}
	return err
}

// hasTerms reports whether algorithm's messages carry a term or epoch
// in their A field: the quorum algorithms'.
func hasTerms(algorithm string) bool {
	a, _, err := nodes.Lookup(algorithm)
	return err == nil && a.Quorum != nil
}

// rowIDs gives a simulated trial's identities from its row: live nodes
// mint their own.
func rowIDs(r *reports.Row) []string {
	if r.Runtime == "live" {
		return nil
	}
	ids, ok := workloads.ArrangementIDs(r.Arrangement, r.Nodes, r.Seed)
	if !ok {
		return nil
	}
	return ids
}

// exploreCommand is the command that writes the explorer page of a trial
// of the trace at tracePath, as report.html shows it beside the trial: the
// run's directory when the trace is its trace.jsonl.
func exploreCommand(tracePath string) func(h reports.TraceHeader) string {
	arg := tracePath
	if filepath.Base(tracePath) == TraceFile {
		arg = filepath.Dir(tracePath)
	}
	return func(h reports.TraceHeader) string {
		return "electbench explore " + shellQuote(arg) + " --trial " + shellQuote(h.TrialName())
	}
}
