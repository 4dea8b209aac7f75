package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/internal/boundedio"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newScenarioCmd) }

func newScenarioCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenario validate|show|list|schema",
		Short: "Check, show and list scenario files",
		Long: `Scenario files describe experiments: algorithms, cluster, network, failure
detector, a timeline of faults and expectations (docs/scenarios.md).

  electbench scenario validate FILE...   check files without running them
  electbench scenario show NAME          print a built-in scenario file to copy and edit
  electbench scenario list               list the built-in scenario files
  electbench scenario schema             the files' JSON Schema, for editors

A FILE that does not exist is looked up among the built-in scenarios, so
"electbench run ring-halves-partition" runs the built-in file.

Exit codes: 0 ok, 2 an invalid file (every problem is listed with its file,
line, column and field).`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "validate FILE...",
		Short: "Check scenario files without running them",
		Args:  usageArgs(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			var bad []string
			for _, arg := range args {
				specs, err := loadScenarios([]string{arg}, "")
				if err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					bad = append(bad, arg)
					continue
				}
				var names []string
				trials := 0
				for _, s := range specs {
					names = append(names, s.Scenario)
					trials += len(s.Plan())
				}
				fmt.Fprintf(out, "%s: ok: %s (%d trials)\n", arg, strings.Join(names, ", "), trials)
			}
			if len(bad) > 0 {
				return badInputf("invalid scenario files: %s", strings.Join(bad, ", "))
			}
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:               "show NAME",
		Short:             "Print a built-in scenario file (default, or one of `scenario list`)",
		Args:              usageArgs(1, 1),
		ValidArgsFunction: completeBuiltins,
		RunE: func(cmd *cobra.Command, args []string) error {
			b, ok := chaos.Builtin(args[0])
			if !ok {
				return badInputf("scenario show: no built-in scenario %q (known: %s)", args[0], strings.Join(chaos.BuiltinNames(), ", "))
			}
			_, err := cmd.OutOrStdout().Write(b)
			return err
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of scenario files, for editors (docs/scenario.schema.json)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b, err := chaos.Schema()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(b)
			return err
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the built-in scenario files",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// The incident library comes last, under its own heading (a
			// capitalised line, where every name is lower case), so that
			// the classic stories keep their places in the listing.
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			for _, name := range chaos.BuiltinNames() {
				if !chaos.IsIncident(name) {
					fmt.Fprintf(tw, "%s\t%s\n", name, chaos.BuiltinSummary(name))
				}
			}
			fmt.Fprintf(tw, "\nIncidents: failures that took real clusters down (docs/incidents.md)\n")
			for _, name := range chaos.IncidentNames() {
				fmt.Fprintf(tw, "%s\t%s\n", name, chaos.BuiltinSummary(name))
			}
			return tw.Flush()
		},
	})
	return cmd
}

// readScenario reads a scenario file, or a built-in scenario of that name
// when no such file exists. A directory is no scenario file: `electbench
// twin paused-leader --out paused-leader` makes one of the scenario's name
// before its second run reads the name again.
func readScenario(arg string) ([]byte, error) {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		if b, ok := chaos.Builtin(arg); ok {
			return b, nil
		}
		return nil, fmt.Errorf("%s: a directory, not a scenario file, nor a built-in scenario (electbench scenario list)", arg)
	}
	b, err := boundedio.ReadFile(arg, chaos.MaxFileSize, "scenario file")
	if err == nil {
		return b, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		if b, ok := chaos.Builtin(arg); ok {
			return b, nil
		}
		return nil, fmt.Errorf("%s: no such file, nor a built-in scenario (electbench scenario list)", arg)
	}
	return nil, err
}

// loadScenarios parses and checks scenario files into specs. Any problem is
// bad input (exit 2), with every error of every file listed.
func loadScenarios(args []string, runtime string) ([]*workloads.Spec, error) {
	var specs []*workloads.Spec
	var msgs []string
	seen := map[string]string{}
	for _, arg := range args {
		b, err := readScenario(arg)
		if err != nil {
			msgs = append(msgs, err.Error())
			continue
		}
		if len(b) > chaos.MaxFileSize {
			msgs = append(msgs, fmt.Sprintf("%s: larger than %d bytes", arg, chaos.MaxFileSize))
			continue
		}
		ss, err := workloads.ParseScenariosOn(arg, b, runtime)
		if err != nil {
			msgs = append(msgs, err.Error())
			continue
		}
		for _, s := range ss {
			if other, dup := seen[s.Scenario]; dup {
				msgs = append(msgs, fmt.Sprintf("%s: scenario %q is also in %s: names must be unique in a run (rows are told apart by it)", arg, s.Scenario, other))
				continue
			}
			seen[s.Scenario] = arg
			specs = append(specs, s)
		}
	}
	if len(msgs) > 0 {
		return nil, badInput(errors.New(strings.Join(msgs, "\n")))
	}
	return specs, nil
}

// workloadFlags are the flags of `electbench run` that define an ad-hoc
// experiment; a scenario file defines its own, so they cannot be combined
// with files. --seed, --trials and --runtime override every scenario's
// (--runtime alone, without files, is an ad-hoc run).
var workloadFlags = []string{"algo", "variant", "param", "nodes", "runtime", "ids", "rank", "initiators", "latency", "deadline", "crash", "detector"}

// adhocFlags are the workload flags set (workloadFlags), which make a run
// without files an ad-hoc one.
func adhocFlags(cmd *cobra.Command, args []string) []string {
	var set []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		for _, w := range workloadFlags {
			if f.Name == w && (len(args) == 0 || w != "runtime") {
				set = append(set, "--"+f.Name)
			}
		}
	})
	return set
}

// noteAdhoc says, once a run from flags is planned, that it is not the
// default scenario.
func noteAdhoc(cmd *cobra.Command, args []string) {
	if set := adhocFlags(cmd, args); len(args) == 0 && len(set) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "ad-hoc run from %s: not the default scenario (no live cluster, no faults, no expectations; electbench scenario show default)\n", strings.Join(set, ", "))
	}
}

// scenarioSpecs returns the specs of a run of scenario files (args), or of
// the built-in default scenario when there are no args and no ad-hoc flag;
// nil when the flags describe an ad-hoc run.
func scenarioSpecs(cmd *cobra.Command, args []string, o runOptions) ([]*workloads.Spec, error) {
	set := adhocFlags(cmd, args)
	if len(args) == 0 {
		if len(set) > 0 {
			return nil, nil
		}
		args = []string{"default"}
	} else if len(set) > 0 {
		return nil, badInputf("%s: a scenario file names its own workload; use these flags without files (ad-hoc runs), or edit the file", strings.Join(set, ", "))
	}
	var runtime string
	if cmd.Flags().Changed("runtime") {
		if o.runtime != "sim" && o.runtime != "live" {
			return nil, badInputf("--runtime %q: want sim or live", o.runtime)
		}
		runtime = o.runtime
	}
	liveUnit, err := o.liveUnit()
	if err != nil {
		return nil, err
	}
	specs, err := loadScenarios(args, runtime)
	if err != nil {
		return nil, err
	}
	if o.simOnly {
		specs = simulatedOnly(specs)
	}
	for _, s := range specs {
		s.Budget = o.budget
		s.KeepRunning = s.KeepRunning || o.keep
		s.LiveUnit = liveUnit
		if err := s.Validate(); err != nil {
			return nil, badInput(err) // the flags' budget: the files were checked when loaded
		}
		if cmd.Flags().Changed("seed") {
			s.Seed = o.seed
		}
		if cmd.Flags().Changed("trials") {
			if o.trials < 1 {
				return nil, badInputf("--trials %d: need at least one trial", o.trials)
			}
			s.Trials = o.trials
		}
	}
	return specs, nil
}

// simulatedOnly keeps, of each spec, the algorithms that run on the
// simulator, and the specs left with one.
func simulatedOnly(specs []*workloads.Spec) []*workloads.Spec {
	return slices.DeleteFunc(specs, func(s *workloads.Spec) bool {
		s.Algos = slices.DeleteFunc(s.Algos, func(a workloads.Algo) bool { return a.Alg.LiveOnly != "" })
		return len(s.Algos) == 0
	})
}

// reportFailures prints which expectations failed, in which trial, with
// its seed, and returns the error for exit code 1.
func reportFailures(w io.Writer, fails []workloads.Failure, trials int) error {
	if len(fails) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nexpectations failed (%d), over %d trials:\n", len(fails), trials)
	const most = 50
	for i, f := range fails {
		if i == most {
			fmt.Fprintf(w, "  ... and %d more (the expect column of results.csv lists every trial)\n", len(fails)-most)
			break
		}
		fmt.Fprintf(w, "  %s\n", reports.ForReader(f.String(), nil)) // the identities are not the failure's to know
	}
	return failed(fmt.Errorf("%d expectation(s) failed", len(fails)))
}

// listFaults prints every fault kind with its parameters and semantics.
func listFaults(w io.Writer, form string) error {
	l := listing{cols: []string{"FAULT", "CLASS", "PARAMETERS", "HEALING", "SUMMARY", "SIM", "LIVE"}, narrow: []int{0, 1, 4}}
	for _, k := range chaos.Kinds() {
		var ps []string
		for _, p := range k.ParamDocs() {
			if p.Required {
				ps = append(ps, p.Name)
			} else {
				ps = append(ps, p.Name+"="+p.Default)
			}
		}
		heals := k.Heals
		if heals == "" {
			heals = "acts once"
		}
		l.rows = append(l.rows, []string{k.Name, k.Class.String(), orDash(strings.Join(ps, ",")), heals, k.Summary, k.Sim, k.Live})
	}
	if form == "json" {
		return l.write(w, form)
	}
	if form == "wide" {
		l.cols, l.rows = l.cols[:5], cutRows(l.rows, 5) // sim and live follow the table
	}
	if err := l.write(w, form); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, k := range chaos.Kinds() {
		fmt.Fprintf(w, "%s\n  sim:  %s\n  live: %s\n", k.Name, k.Sim, k.Live)
	}
	fmt.Fprintf(w, "\nselectors: a position, %s, or a list of them\n", strings.Join(chaos.Roles, ", "))
	fmt.Fprintf(w, "partition shapes: %s\n", strings.Join(chaos.Shapes, ", "))
	fmt.Fprintln(w, "at: start, a time (5ms, 3T), election-start, leader-elected or after-messages(K), a trigger optionally +DURATION")
	_, err := fmt.Fprintln(w, "a fault lasts `for` a duration or until a `heal: NAME` item; docs/scenarios.md has every field")
	return err
}

// cutRows is rows with their first n cells.
func cutRows(rows [][]string, n int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[:n]
	}
	return out
}
