package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

func init() { commands = append(commands, newTwinCmd) }

// twinOptions are the flags of `electbench twin`.
type twinOptions struct {
	out       string
	seed      uint64
	trials    int
	toxiproxy string
	threshold string
	alpha     float64
	unit      string // --unit: the simulated side reads parameters in T or the live unit
}

func newTwinCmd() *cobra.Command {
	o := twinOptions{out: "twin-out", threshold: "5%", alpha: 0.05, unit: "live"}
	cmd := &cobra.Command{
		Use:   "twin SCENARIO [flags]",
		Short: "Run a scenario on the simulator and live with the same seeds, and compare them",
		Long: `Run one scenario (a file or a built-in name) twice with the same seeds: on the
simulator into DIR/sim and on node processes through Toxiproxy into
DIR/live (each as electbench run writes it), then compare them group by
group — algorithm, variant, scenario, nodes — with compare's statistics:
the shares of safe, live and correct trials by a two-sided Fisher exact
test, and the medians of messages, turnaround_t, turnaround_tm (turnaround
in the T the network actually gave), decided_t, detect_t and failover_t by
a two-sided Mann–Whitney U test with --threshold as the least change that
counts; for an incident scenario (docs/incidents.md) also the medians of
its signature's disruption figures: disruptions, leaderless_t,
stale_leader_s, term_inflation and elections. A difference that is significant (a Benjamini–Hochberg q-value at
most --alpha over the tests that could reach it, as compare judges) and
beyond the threshold, for a median, exceeds the noise.

Both sides run one experiment: live nodes read their parameters (timeouts,
leases, heartbeat periods) in the live unit, T plus the runtime's allowance
max(5ms, T/2), while the scenario's faults and deadline stay in T; the
simulated side reads them in the same unit (run --unit live), so that what
differs is what the runtime did, not which timeouts the algorithms had.
--unit T compares with the reference model instead (at T = 1ms the live
unit is 6T: a partition of 300T then spans a sixth of the timeouts live).

It writes DIR/twin.csv (sim and live side by side, the difference, p, q and
whether it exceeds the noise, per group and metric) and DIR/twin.html, and
prints the differences that exceed the noise or cannot be decided.

Exit codes: 0 ok (differences are findings, not failures), 2 bad usage or
input, 3 an infrastructure failure, 130 interrupted.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInputf("twin takes one SCENARIO; got %d argument(s)", len(args))
			}
			return nil
		},
		ValidArgsFunction: completeScenarios,
		RunE:              func(cmd *cobra.Command, args []string) error { return runTwin(cmd, args[0], o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", o.out, "output directory: sim/, live/, twin.csv and twin.html under it")
	f.Uint64Var(&o.seed, "seed", 0, "seed of both runs (default: the scenario's)")
	f.IntVar(&o.trials, "trials", 0, "trials per algorithm and size on each runtime (default: the scenario's)")
	f.StringVar(&o.toxiproxy, "toxiproxy", "", "URL of an existing toxiproxy-server for the live run (default: embed one, on loopback)")
	f.StringVar(&o.threshold, "threshold", o.threshold, "least change of the median that counts, in percent (5 or 5%)")
	f.Float64Var(&o.alpha, "alpha", o.alpha, "significance level of the two-sided tests")
	f.StringVar(&o.unit, "unit", o.unit, "the unit the simulated side's machines read their parameters in: live (as the live nodes do) or T (the reference model)")
	_ = cmd.RegisterFlagCompletionFunc("unit", completeWords("T", "live"))
	return cmd
}

func runTwin(cmd *cobra.Command, scenario string, o twinOptions) error {
	threshold, err := parseThreshold(o.threshold)
	if err != nil {
		return badInput(err)
	}
	if !(o.alpha > 0 && o.alpha < 1) {
		return badInputf("--alpha %v: want a level between 0 and 1", o.alpha)
	}
	if _, err := (runOptions{unit: o.unit}).liveUnit(); err != nil {
		return err // refused before either side runs, in run's words
	}
	// Both sides read the scenario; either would refuse a bad one, but
	// only after the other side's line about starting.
	simulated := false
	for _, rt := range []string{"sim", "live"} {
		specs, err := loadScenarios([]string{scenario}, rt)
		if err != nil {
			return err
		}
		simulated = simulated || rt == "sim" && len(simulatedOnly(specs)) > 0
	}
	// Each side is gathered as it is read (compare's way): twin holds the
	// figures of its runs, not their rows.
	copt := reports.CompareOptions{Alpha: o.alpha, Threshold: threshold}
	sides := [2]*reports.CompareSide{reports.NewTwinSide(copt), reports.NewTwinSide(copt)}
	for i, rt := range []string{"sim", "live"} {
		dir := filepath.Join(o.out, rt)
		if rt == "sim" && !simulated {
			fmt.Fprintf(cmd.ErrOrStderr(), "twin: no simulated run of %s: its algorithms all run only live\n", scenario)
			continue
		}
		args := []string{scenario, "--runtime", rt, "--out", dir, "--format", "csv,html"}
		if cmd.Flags().Changed("seed") {
			args = append(args, "--seed", strconv.FormatUint(o.seed, 10))
		}
		if cmd.Flags().Changed("trials") {
			args = append(args, "--trials", strconv.Itoa(o.trials))
		}
		if rt == "sim" {
			args = append(args, "--unit", o.unit)
		}
		if rt == "live" && o.toxiproxy != "" {
			args = append(args, "--toxiproxy", o.toxiproxy)
		}
		unit := ""
		if rt == "sim" {
			unit = " (parameters in the live unit, as the live nodes read them)"
			if o.unit == "T" {
				unit = " (parameters in T, the reference model)"
			}
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "twin: %s run of %s into %s%s\n", rt, scenario, dir, unit)
		// The simulated side leaves out the live-only algorithms: they
		// have no simulated twin (they run live whatever the runtime).
		ro := defaultRunOptions()
		ro.simOnly = rt == "sim"
		run := newRunCmdWith(ro)
		run.SetArgs(args)
		run.SetOut(cmd.OutOrStdout())
		run.SetErr(cmd.ErrOrStderr())
		run.SilenceUsage, run.SilenceErrors = true, true
		run.SetFlagErrorFunc(flagError)
		err := run.ExecuteContext(cmd.Context())
		// A failed expectation is a finding of the scenario, on either
		// runtime; anything else stops the twin.
		var ee *exitError
		if err != nil && !(errors.As(err, &ee) && ee.code == exitFailed) {
			return err
		}
		if _, err := scanResults(dir, sides[i].Add); err != nil {
			return err
		}
	}
	c := reports.Twin(sides[0], sides[1], func(live []string) bool { return incidentRows(scenario, live) })
	if err := reports.WriteFileAtomic(filepath.Join(o.out, "twin.csv"), func(w io.Writer) error { return reports.WriteTwinCSV(w, c) }); err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(filepath.Join(o.out, "twin.html"), func(w io.Writer) error { return reports.WriteTwinHTML(w, c, scenario) }); err != nil {
		return err
	}
	return reports.WriteTwinText(cmd.OutOrStdout(), c)
}

// incidentRows says whether the twin runs an incident scenario: a
// built-in of the library, or a file with one of its scenarios (a copy cut
// down to fewer trials or variants, as `scenario show` prints it) — one
// its live rows name.
func incidentRows(scenario string, liveScenarios []string) bool {
	return chaos.IsIncident(scenario) || slices.ContainsFunc(liveScenarios, chaos.IsIncident)
}
