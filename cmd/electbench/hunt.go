package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/hunt"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newHuntCmd) }

// huntOptions are the flags of `electbench hunt`.
type huntOptions struct {
	algos, variant, params string // as run's --algo, --variant, --param
	nodes                  string
	latency                string
	detector               string
	initiators             string
	deadline               string
	seed                   uint64
	kinds                  string
	latencies              string // --latency-models
	heal                   string
	property               string
	within                 string
	budget                 string
	parallel               int
	uniform                bool
	beyondModel            bool
	out                    string
	shrink                 bool            // also shrink a finding
	history                string          // store the outcome in this history
	external               externalOptions // --node-cmd and its companions
}

// huntFlags are hunt's flags that describe the base scenario, which a
// scenario file names itself.
var huntFlags = []string{"algo", "variant", "param", "nodes", "latency", "detector", "initiators", "deadline", "node-cmd"}

func newHuntCmd() *cobra.Command {
	o := huntOptions{algos: "bully", nodes: "3..8", latency: "1ms", seed: 1, property: "verdict", budget: "1000", out: "hunt-out"}
	cmd := &cobra.Command{
		Use:   "hunt [SCENARIO] [flags]",
		Short: "Search fault schedules for a trial that violates a property, and write it as a scenario file",
		Long: `Search the space of fault schedules around a base scenario (a file, a
built-in name, or run's flags) for one simulated trial that violates a
property, and write it to DIR/counterexample.yaml: a scenario file of that
one trial whose expect: names the violation, so that
'electbench run DIR/counterexample.yaml' exits 1 while it still occurs.

Each candidate is a whole scenario of one trial: one of the algorithms, a
cluster size among --nodes, initiators, a latency model around T (constant,
uniform or exponential) and faults drawn by swarm testing (a subset of the
--kinds and a rate first, then the faults: target, start as a time or a
trigger, length, parameters). The search is guided: candidates that reach
new abstract protocol states (each process's phase and whom it believes,
how many believe they lead, term growth) are kept and mutated beside fresh
draws; --uniform draws every candidate fresh. The same --seed finds the
same counterexample at any --parallel.

Properties (--property): verdict (every trial safe, live and correct),
safety, liveness (with --within D: decided within D of the last fault's
heal), correct (every live process decided the rightful leader), expect (the base scenario's own expectations), or a threshold on a numeric
column such as disruptions>=1. A violation of a bounded-delay algorithm
whose message outlasted its D (the overruns column) lies beyond its model:
it is counted, not written, unless --beyond-model.

--shrink also shrinks a counterexample as electbench shrink does, writing
DIR/shrunk.yaml, DIR/story.html and DIR/trace.jsonl beside it, and prints
its fault story in one line. --history H records the outcome, found or
not, as DIR/hunt.json and stores it under H/hunts/: compare --base-history
H names a counterexample that earlier hunts of the same search did not
find as a regression (docs/HUNT.md, Nightly). docs/HUNT.md tells more.

Exit codes: 0 nothing found in the budget (it says what it covered),
1 a counterexample was written, 2 bad usage or input (nothing written),
130 interrupted (a counterexample found so far is written).`,
		Args:              usageArgs(0, 1),
		ValidArgsFunction: completeScenarios,
		RunE:              func(cmd *cobra.Command, args []string) error { return runHunt(cmd, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.algos, "algo", o.algos, "algorithms searched, as run's --algo (a candidate runs one)")
	f.StringVar(&o.variant, "variant", "", "variant of the chosen algorithms, as run's --variant")
	f.StringVar(&o.params, "param", "", "algorithm parameters, as run's --param (t1=1.5T)")
	f.StringVar(&o.nodes, "nodes", o.nodes, "cluster sizes a candidate draws from: N, A..B (doubling) or a list 3,5,8")
	f.StringVar(&o.latency, "latency", o.latency, "the mean one-way latency T the latency models are drawn around")
	f.StringVar(&o.detector, "detector", "", "failure detector, as run's --detector (default perfect(10T))")
	f.StringVar(&o.initiators, "initiators", "", "who initiates, as run's --initiators (default: drawn among lowest, all, successor-of-max, random(2))")
	f.StringVar(&o.deadline, "deadline", "", "virtual time after which an unfinished trial counts as not live (default 100N+1000 T)")
	f.Uint64Var(&o.seed, "seed", o.seed, "seed of the search: the same seed finds the same counterexample")
	f.StringVar(&o.kinds, "kinds", "", "fault kinds searched, comma-separated (default every kind: electbench list faults); none for no faults")
	f.StringVar(&o.latencies, "latency-models", strings.Join(hunt.LatencyModels, ","), "latency models drawn around T, comma-separated")
	f.StringVar(&o.heal, "heal", hunt.HealSometimes, "whether faults that can heal do (crashes restart, partitions reconnect): sometimes, always (crash-recovery, partitions that end),\nor never (crash-stop, as the ring algorithms assume)")
	f.StringVar(&o.property, "property", o.property, "the property: verdict, safety, liveness, correct, expect, or a column threshold such as disruptions>=1")
	f.StringVar(&o.within, "within", "", "with --property liveness: the bound after the last fault's heal by which every live process decides (50T)")
	f.StringVar(&o.budget, "budget", o.budget, "how long to search: a number of trials (1000) or a duration (30s)")
	f.IntVar(&o.parallel, "parallel", 0, "trials run at once (default: one per core); what is found does not depend on it")
	f.BoolVar(&o.uniform, "uniform", false, "turn guidance off: every candidate a fresh draw")
	f.BoolVar(&o.beyondModel, "beyond-model", false, "count a violation beyond the algorithm's model (overruns) as a counterexample")
	f.StringVar(&o.out, "out", o.out, "directory the counterexample is written to (only when one is found, or with --history)")
	f.BoolVar(&o.shrink, "shrink", false, "also shrink a counterexample: DIR/shrunk.yaml, DIR/story.html, DIR/trace.jsonl, and its story in one line")
	f.StringVar(&o.history, "history", "", "record the outcome (found or not, trials, states, the files found) as DIR/hunt.json and store it in this history (run --history)")
	_ = cmd.RegisterFlagCompletionFunc("algo", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeList(algoWords(), toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("detector", completeDetector)
	o.external.bind(f)
	return cmd
}

func runHunt(cmd *cobra.Command, o huntOptions, args []string) error {
	opts, err := o.options(cmd, args)
	if err != nil {
		return err
	}
	if err := checkHistoryDir(o.history); err != nil {
		return err
	}
	ctx, stop := interrupts(cmd, "the hunt")
	defer stop()
	stderr := cmd.ErrOrStderr()
	prog := huntProgress(stderr, opts.Trials, time.Now, powIsTerminal(stderr))
	opts.Progress = prog
	start := time.Now()
	found, st, err := hunt.Run(ctx, opts)
	prog(hunt.Stats{Trials: -1})
	interrupted := err != nil && ctx.Err() != nil
	if err != nil && !interrupted {
		return err
	}
	out := cmd.OutOrStdout()
	rec := huntRecord(cmd, o, args, opts, st)
	if found == nil {
		fmt.Fprintf(out, "no counterexample to %s in %d trials (%v): %d distinct states covered%s\n",
			opts.Property, st.Trials, time.Since(start).Round(time.Millisecond), st.States, covered(st))
		if interrupted {
			return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
		}
		if o.history != "" {
			return recordHunt(cmd, o.out, o.history, rec)
		}
		return nil
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(o.out, "counterexample.yaml")
	if err := os.WriteFile(path, found.File, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "counterexample after %d trials: %s N=%d, %d faults: %s; written to %s\n",
		found.Trial, found.Algorithm, found.Nodes, found.Faults, reports.ForReader(found.What, nil), path)
	if (o.shrink || o.history != "") && !interrupted {
		if rec.Found, err = shrinkFinding(ctx, cmd, o.out, found, o.shrink); err != nil {
			return err
		}
		if err := recordHunt(cmd, o.out, o.history, rec); err != nil {
			return err
		}
	}
	return failed(fmt.Errorf("%s violated (electbench run %s reproduces it)", opts.Property, path))
}

// covered says what else a search without a finding saw.
func covered(st hunt.Stats) string {
	s := ""
	if st.Beyond > 0 {
		s += fmt.Sprintf("; %d violations beyond the model (a message outlasted D, nobody left alive, no majority up, or no initiator told; --beyond-model writes them)", st.Beyond)
	}
	if st.Invalid > 0 {
		s += fmt.Sprintf("; %d candidates refused by the scenario checks", st.Invalid)
	}
	return s
}

// options checks the flags and builds the search, or says what is wrong
// (exit 2, before anything runs or is written).
func (o huntOptions) options(cmd *cobra.Command, args []string) (hunt.Options, error) {
	var opts hunt.Options
	var err error
	if opts.Property, err = hunt.ParseProperty(o.property); err != nil {
		return opts, badInput(err)
	}
	if o.within != "" {
		if opts.Property.Name != "liveness" {
			return opts, badInputf("--within applies to --property liveness, not %s", opts.Property)
		}
		if opts.Property.Within, err = chaos.ParseDuration(o.within); err != nil || opts.Property.Within.Of(time.Millisecond) <= 0 {
			return opts, badInputf("--within %q: want a positive duration such as 50T or 200ms", o.within)
		}
	}
	if opts.Trials, opts.Time, err = parseBudget(o.budget); err != nil {
		return opts, badInput(err)
	}
	if o.parallel < 0 {
		return opts, badInputf("--parallel %d: must be at least 1 (or 0 for one per core)", o.parallel)
	}
	base, err := o.base(cmd, args)
	if err != nil {
		return opts, err
	}
	if opts.Property.Name == "expect" && base.Expect.IsZero() {
		return opts, badInputf("--property expect: scenario %s expects nothing", base.Name)
	}
	if opts.Space, err = hunt.NewSpace(base, list(o.kinds, cmd.Flags().Changed("kinds")), list(o.latencies, true)); err != nil {
		return opts, badInput(err)
	}
	if !slices.Contains(hunt.HealModes, o.heal) {
		return opts, badInputf("--heal %q: want %s", o.heal, orList(hunt.HealModes))
	}
	opts.Space.Heal = o.heal
	opts.Seed, opts.Parallel, opts.Uniform, opts.BeyondModel = o.seed, o.parallel, o.uniform, o.beyondModel
	return opts, nil
}

// list splits a comma-separated flag; nil when it was not given, and
// empty for "none".
func list(s string, given bool) []string {
	if !given {
		return nil
	}
	if strings.TrimSpace(s) == "none" {
		return []string{}
	}
	return strings.Split(s, ",")
}

// parseBudget reads --budget: a number of trials or a duration.
func parseBudget(s string) (trials int, d time.Duration, err error) {
	if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		if n <= 0 {
			return 0, 0, fmt.Errorf("--budget %s: need at least one trial", s)
		}
		return n, 0, nil
	}
	if d, err := time.ParseDuration(strings.TrimSpace(s)); err == nil {
		if d <= 0 {
			return 0, 0, fmt.Errorf("--budget %s: need a positive duration", s)
		}
		return 0, d, nil
	}
	return 0, 0, fmt.Errorf("--budget %q: want a number of trials (1000) or a duration (30s)", s)
}

// base is the scenario the search varies: the file or built-in named (its
// first scenario), or one written from the flags and read by chaos.Parse
// as a file would be.
func (o huntOptions) base(cmd *cobra.Command, args []string) (*chaos.Scenario, error) {
	if len(args) == 1 {
		var set []string
		cmd.Flags().Visit(func(f *pflag.Flag) {
			for _, w := range huntFlags {
				if f.Name == w {
					set = append(set, "--"+f.Name)
				}
			}
		})
		if len(set) > 0 {
			return nil, badInputf("%s: a scenario file names its own workload; use these flags without a file, or edit the file", strings.Join(set, ", "))
		}
		b, err := readScenario(args[0])
		if err != nil {
			return nil, badInput(err)
		}
		ss, err := chaos.Parse(args[0], b)
		if err != nil {
			return nil, badInput(err)
		}
		if len(ss) > 1 {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s holds %d scenarios: hunting around the first, %s\n", args[0], len(ss), ss[0].Name)
		}
		return ss[0], nil
	}
	items, err := o.algorithms(cmd)
	if err != nil {
		return nil, err
	}
	doc := map[string]any{"name": "hunt", "algorithms": items, "nodes": o.nodes, "network": map[string]any{"latency": o.latency}}
	for k, v := range map[string]string{"detector": o.detector, "initiators": o.initiators, "deadline": o.deadline} {
		if v != "" {
			doc[k] = v
		}
	}
	text, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	ss, err := chaos.Parse("flags", text)
	if err != nil {
		return nil, badInput(err)
	}
	return ss[0], nil
}

// algorithms are the items of the base's algorithms: --algo's, and a
// --node-cmd program written as a scenario defines one (its command,
// topology and theory), so that a counterexample names its program.
func (o huntOptions) algorithms(cmd *cobra.Command) ([]any, error) {
	var items []any
	s, ok, err := o.external.spec(cmd)
	if err != nil {
		return nil, err
	}
	if ok {
		a, err := s.Algorithm()
		if err != nil {
			return nil, badInput(err)
		}
		item := map[string]any{"name": a.Name, "command": s.Command, "topology": o.external.topology}
		if s.Theory != "" {
			item["theory"] = s.Theory
		}
		items = append(items, item)
		if !cmd.Flags().Changed("algo") {
			return items, nil
		}
	}
	algos, err := parseAlgos(o.algos, o.variant, o.params)
	if err != nil {
		return nil, badInput(err)
	}
	if err := (&workloads.Spec{Algos: algos}).ValidateSim(); err != nil {
		return nil, badInput(err) // a hunt simulates: a live-only algorithm is refused, as by run
	}
	for _, a := range algos {
		item := map[string]any{"name": a.Alg.Name, "variant": a.Variant}
		if len(a.Params) > 0 {
			item["params"] = map[string]string(a.Params)
		}
		items = append(items, item)
	}
	return items, nil
}

// huntProgress reports a hunt's figures after each batch: on a terminal
// a line redrawn at most every 200 ms, elsewhere a line every logEvery.
// Stats with Trials -1 end it (a terminal's line is finished).
func huntProgress(w io.Writer, budget int, now func() time.Time, terminal bool) func(hunt.Stats) {
	start, last := now(), now()
	every := logEvery
	if terminal {
		every = 200 * time.Millisecond
	}
	drawn := false
	return func(st hunt.Stats) {
		if st.Trials < 0 {
			if terminal && drawn {
				fmt.Fprintln(w)
			}
			return
		}
		t := now()
		if t.Sub(last) < every {
			return
		}
		last = t
		of := ""
		if budget > 0 {
			of = "/" + strconv.Itoa(budget)
		}
		line := fmt.Sprintf("hunt: %d%s trials, %d states, %v elapsed", st.Trials+st.Invalid, of, st.States, t.Sub(start).Round(time.Second/10))
		if st.Best != "" {
			line += "; best " + st.Best
		}
		if terminal {
			fmt.Fprintf(w, "\r%s   ", line)
			drawn = true
			return
		}
		fmt.Fprintln(w, line)
	}
}
