package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/pow"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/shrink"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newRunCmd) }

// runOptions are the flags of `electbench run`.
type runOptions struct {
	algos      string
	variant    string
	params     string
	nodes      string
	trials     int
	seed       uint64
	runtime    string
	ids        string
	initiators string
	latency    string
	out        string
	formats    string
	parallel   int
	resume     bool
	deadline   string
	keep       bool   // --keep-running: quorum trials run to their deadline
	dryRun     bool   // --dry-run: print the plan's cost and exit (dryrun.go)
	print      string // --print: what run prints, table, wide or json (printForms)
	unit       string // --unit: T, or live (the simulator reads parameters as live nodes do)
	trace      string
	trial      string // --trial: run only this trial of the plan (trialid.go)
	crashes    []string
	detector   string
	rank       string
	toxiproxy  string           // live runs: an existing toxiproxy-server; "" embeds one
	netns      int              // live runs: hosts made of network namespaces; 0 runs on loopback
	agents     bool             // with netns: the nodes run through an agent in each host
	hosts      string           // live runs: a hosts file of agents started by hand (harness.ReadHosts)
	clocks     string           // --clock-offsets: each --netns host's monotonic clock shift (clock.go)
	shard      string           // K/M: run only part K of M of the plan (shard.go)
	shards     int              // M, with K from $ELECTBENCH_SHARD or $JOB_COMPLETION_INDEX
	budget     trial.Budget     // --max-events, --max-inflight; zero: scaled to N
	maxMemory  string           // --max-memory: the plan guard's limit (memory.go)
	report     runReportOptions // report.html and --history (history.go)
	// simOnly leaves out the live-only algorithms of scenario files (not a
	// flag: twin's simulated side, where they have no simulated twin and
	// would run live only to be discarded).
	simOnly  bool
	external externalOptions // --node-cmd and its companions (external.go)
}

// Defaults of a bare `electbench run`: a quick simulated sweep of every
// algorithm, finishing in seconds.
func defaultRunOptions() runOptions {
	return runOptions{
		algos: "all", nodes: "4..256", trials: 5, seed: 1, runtime: "sim",
		ids: "random", initiators: "lowest", latency: "1ms", rank: "id", unit: "T",
		out: "electbench-out", formats: "csv,html",
	}
}

func newRunCmd() *cobra.Command { return newRunCmdWith(defaultRunOptions()) }

// newRunCmdWith is `electbench run` with o as its options before the
// flags: defaultRunOptions, or a caller's variant of them (twin).
func newRunCmdWith(o runOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [SCENARIO...] [flags]",
		Short: "Run scenario files or elections and write results.csv and summary.csv",
		Long: `Run every chosen algorithm at every cluster size, --trials times each, and
write one row per trial to DIR/results.csv (flushed as each trial ends) and a
summary per algorithm and size to DIR/summary.csv, then print a short table.

Given scenario files (or names of built-in scenarios: electbench scenario
list), it runs every scenario in them, with its faults, and checks its
expectations: when one fails, it exits 1 after writing every row and a
summary of which expectation failed, in which trial, with its seed. --seed,
--trials and --runtime override the files' (--runtime live tells a
simulated scenario's story with real processes; --runtime sim the other
way round); the other workload flags (--algo, --nodes, ...) describe ad-hoc
runs and cannot be combined with files.

With no arguments and no workload flag it runs the built-in default scenario
(electbench scenario show default): a simulated sweep of every registered
algorithm over N = 4..256, then a small live cluster (node processes through
embedded Toxiproxy) under one crash and one partition. Scenarios with
runtime: live run after the simulated ones. Durations in --param and
--deadline may be written in units of the mean one-way latency T, as in
t1=2T, or of the latency's delay bound D, as in t1=2D (D is the largest
delay: t for constant(t), b for uniform(a,b), the p99.9 for normal and
exponential; the bully family's timeouts default to multiples of D).

Exit codes: 0 ok, 1 an expectation failed, 2 bad usage or input,
3 an infrastructure or internal failure (Toxiproxy, a process spawn, the
host; the failed trial is not recorded and --resume runs it again),
130 interrupted (finished trials are kept: rerun with --resume).`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeScenarios,
		RunE:              func(cmd *cobra.Command, args []string) error { return runRun(cmd, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.algos, "algo", o.algos, "algorithms, comma-separated, as name or name/variant; all for every election algorithm, mutex for every mutual-exclusion one")
	f.StringVar(&o.variant, "variant", o.variant, "variant of the chosen algorithms (default: each one's first)")
	f.StringVar(&o.params, "param", o.params, "algorithm parameters [ALGORITHM.]key=value[,...]: key=value for every chosen algorithm,\nraft.tmin=150ms for one (electbench list algorithms shows each one's)")
	f.StringVar(&o.nodes, "nodes", o.nodes, "cluster sizes: N, A..B (doubling) or a list 3,5,8")
	f.IntVar(&o.trials, "trials", o.trials, "trials per algorithm and size")
	f.Uint64Var(&o.seed, "seed", o.seed, "seed of the run; trial i uses a seed derived from it and i")
	f.StringVar(&o.runtime, "runtime", o.runtime, "runtime: sim, or live (node processes through Toxiproxy; T ≥ 1ms, whole milliseconds)")
	f.StringVar(&o.toxiproxy, "toxiproxy", "", "live runs: URL of an existing toxiproxy-server (default: embed one, on loopback)")
	f.IntVar(&o.netns, "netns", 0, "live runs: spread each cluster's nodes over this many hosts made of Linux network namespaces\non a bridge, in blocks (root only; docs/multi-host.md)")
	f.BoolVar(&o.agents, "agents", false, "live runs with --netns: start each host's nodes through an electbench agent in that host,\nas on hosts of their own (docs/multi-host.md)")
	f.StringVar(&o.hosts, "hosts", "", "live runs: a YAML file of hosts whose agents were started by hand (electbench agent): the nodes\nare dealt to them in blocks (docs/multi-host.md)")
	f.StringVar(&o.clocks, "clock-offsets", "", "live runs with --netns K: shift each host's monotonic clock, K durations (0,250ms,-400ms);\nthe harness estimates the offsets and corrects for them (the clock_error_s column)")
	f.StringVar(&o.ids, "ids", o.ids, "id arrangement by ring position: random, ascending, descending, bit-reversal, anonymous, a list,\nor pow(b[,hash]) for minted proof-of-work identities (cached on disk)")
	f.StringVar(&o.rank, "rank", o.rank, "rank processes by id, or by epoch: H(id ‖ a nonce drawn per trial)")
	f.StringVar(&o.initiators, "initiators", o.initiators, "who initiates: all, max, successor-of-max, lowest, random(k) or positions")
	f.StringVar(&o.latency, "latency", o.latency, "link latency: 1ms, uniform(1ms,5ms), normal(5ms,1ms), exponential(2ms)")
	f.StringVar(&o.out, "out", o.out, "output directory")
	f.StringVar(&o.formats, "format", o.formats, "files written under --out, comma-separated: csv, json (results and summary), html (report.html)")
	f.IntVar(&o.parallel, "parallel", o.parallel, "trials run at once (default: one per core); results do not depend on it")
	f.BoolVar(&o.resume, "resume", o.resume, "keep the rows already in DIR/results.csv and run only the missing trials")
	f.StringVar(&o.deadline, "deadline", o.deadline, "virtual time after which an unfinished trial counts as not live (e.g. 500ms or 2000T)")
	bindPrint(cmd, &o.print, "the summary printed")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what the plan holds and is expected to cost (trials, events, wall time, peak memory, trace size) and exit")
	f.BoolVar(&o.keep, "keep-running", o.keep, "run quorum trials (raft, chubby, zookeeper, etcd-raft) to their deadline, their steady traffic included,\ninstead of ending each once its election is over for good")
	f.StringVar(&o.unit, "unit", o.unit, "the unit the simulator's machines read their parameters in (t1=2T): T, the mean latency (the reference model),\nor live: T plus the live runtime's allowance max(5ms, T/2), as live nodes read them (electbench twin's simulated side)")
	f.StringVar(&o.trace, "trace", o.trace, "write every event of every trial as JSON lines to this regular file (appended to on --resume)")
	f.StringVar(&o.trial, "trial", "", "run only this trial of the plan, with its trace (default DIR/trace.jsonl): SCENARIO/ALGORITHM/VARIANT/N/TRIAL,\nas in default-sweep/bully/classic/8/3, or the trial as the report's Replay line and the list of failing trials name it")
	f.StringArrayVar(&o.crashes, "crash", nil, "crash SELECTOR[@WHEN] (repeatable), a scenario's crash fault: highest, lowest, leader,\nwould-be-leader, initiator, K, random(k), successor(x), unions a,b @ start, a time (5ms, 3T),\nelection-start, leader-elected, after-messages(K), each +DELAY and/or +uniform(A,B) (a random offset)")
	f.StringVar(&o.detector, "detector", "", "failure detector: perfect(D), heartbeat(P,τ), inaccurate(λ,μ[,D[,W]]) (default perfect(10T))")
	f.StringVar(&o.shard, "shard", "", "run only part K/M of the plan (for sweeps across machines; electbench merge puts the parts together)")
	f.IntVar(&o.shards, "shards", 0, "the plan's parts M, with K from $ELECTBENCH_SHARD (1..M) or $JOB_COMPLETION_INDEX (0..M-1, a Kubernetes Indexed Job's)")
	f.Int64Var(&o.budget.MaxEvents, "max-events", 0, "events one trial may process (live: the steps its machines handle) before it is stopped and recorded as not live\n(default 64·N² + 2²⁰, plus 4N per T of the deadline for quorum algorithms)")
	f.Int64Var(&o.budget.MaxInFlight, "max-inflight", 0, "events one trial may hold pending (simulated: messages in flight and armed timers, about\n190 bytes each; live: messages written not yet delivered) before it is stopped and recorded\nas not live (default max(4N, 2²⁰), and at least 2N² on a complete graph)")
	f.StringVar(&o.maxMemory, "max-memory", "", "memory the run may use, all trials at once: a size (16GiB, 512MB) or a share of this machine's (50%);\na plan estimated to need more is refused before it starts (default 75%)")
	o.report.bind(f)
	_ = cmd.RegisterFlagCompletionFunc("algo", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeList(algoWords(), toComplete)
	})
	_ = cmd.RegisterFlagCompletionFunc("runtime", completeWords("sim", "live"))
	_ = cmd.RegisterFlagCompletionFunc("unit", completeWords("T", "live"))
	_ = cmd.RegisterFlagCompletionFunc("detector", completeDetector)
	_ = cmd.RegisterFlagCompletionFunc("format", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return completeList(resultsFormats, toComplete)
	})
	o.external.bind(f)
	return cmd
}

// liveUnit reads --unit: whether simulated machines read their parameters
// in the live unit (workloads.Spec.LiveUnit).
func (o runOptions) liveUnit() (bool, error) {
	switch o.unit {
	case "T":
		return false, nil
	case "live":
		return true, nil
	}
	return false, badInputf("--unit %q: want T or live", o.unit)
}

// buildSpec turns flags into a validated workload, or a bad-input error.
func (o runOptions) buildSpec() (*workloads.Spec, error) {
	if o.runtime != "sim" && o.runtime != "live" {
		return nil, badInputf("--runtime %q: want sim or live", o.runtime)
	}
	lat, err := trial.ParseLatency(o.latency)
	if err != nil {
		return nil, badInputf("--latency: %w", err)
	}
	liveUnit, err := o.liveUnit()
	if err != nil {
		return nil, err
	}
	spec := &workloads.Spec{Scenario: "adhoc", Trials: o.trials, Seed: o.seed, Latency: lat, KeepRunning: o.keep, LiveUnit: liveUnit}
	if spec.Algos, err = parseAlgos(o.algos, o.variant, o.params); err != nil {
		return nil, badInput(err)
	}
	if spec.Nodes, err = workloads.ParseNodes(o.nodes); err != nil {
		return nil, badInput(err)
	}
	if spec.IDs, err = workloads.ParseIDs(o.ids); err != nil {
		return nil, badInput(err)
	}
	if spec.Initiators, err = workloads.ParseInitiators(o.initiators); err != nil {
		return nil, badInput(err)
	}
	if spec.RankBy, err = workloads.ParseRankBy(o.rank); err != nil {
		return nil, badInput(err)
	}
	if o.deadline != "" {
		if spec.Deadline, err = nodes.ParseDuration(o.deadline, lat.Mean(), lat.Bound()); err != nil || spec.Deadline <= 0 {
			return nil, badInputf("--deadline %q: want a positive duration such as 500ms or 2000T", o.deadline)
		}
	}
	for _, c := range o.crashes {
		cs, err := workloads.ParseCrash(c)
		if err != nil {
			return nil, badInput(err)
		}
		spec.Crashes = append(spec.Crashes, cs)
	}
	if o.detector != "" {
		if spec.Detector, err = trial.ParseDetector(o.detector, lat); err != nil {
			return nil, badInputf("--detector: %w", err)
		}
	}
	if o.parallel < 0 {
		return nil, badInputf("--parallel %d: must be at least 1 (or 0 for one per core)", o.parallel)
	}
	spec.Budget = o.budget
	if err := spec.Validate(); err != nil {
		return nil, badInput(err)
	}
	if o.runtime == "live" {
		if err := spec.ValidateLive(); err != nil {
			return nil, badInput(err)
		}
	} else if err := spec.ValidateSim(); err != nil {
		return nil, badInput(err)
	}
	return spec, nil
}

// parseAlgos reads --algo, --variant and --param. A parameter written
// key=value applies to every chosen algorithm, and each must know it;
// algo.key=value (raft.tmin=150ms) applies to that algorithm only, which
// must be among --algo. An unknown parameter is always an error.
func parseAlgos(list, variant, params string) ([]workloads.Algo, error) {
	ps, err := parseParams(params)
	if err != nil {
		return nil, err
	}
	// "all" is every election algorithm, as it always was; "mutex" every
	// mutual-exclusion algorithm (ALGORITHMS.md, "Mutual exclusion");
	// either may stand in a list beside names ("all,mutex": every one).
	var names []string
	named := map[string]bool{} // the names not from "all"
	for _, item := range strings.Split(list, ",") {
		switch item = strings.TrimSpace(item); item {
		case "all":
			names = append(names, nodes.ElectionNames()...)
		case "mutex":
			for _, name := range nodes.MutexNames() {
				names, named[name] = append(names, name), true
			}
		default:
			names, named[item] = append(names, item), true
		}
	}
	var out []workloads.Algo
	for _, name := range names {
		if variant != "" && !strings.Contains(name, "/") {
			name += "/" + variant
		}
		alg, v, err := nodes.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("--algo: %w", err)
		}
		// An algorithm chosen twice ("all,raft") runs once, where it was
		// first chosen. From "all", each runs on the sizes it allows there
		// (AllUpTo); named, on every size.
		upTo := alg.AllUpTo
		if named[name] || named[strings.SplitN(name, "/", 2)[0]] {
			upTo = 0
		}
		if i := slices.IndexFunc(out, func(a workloads.Algo) bool { return a.Alg == alg && a.Variant == v }); i >= 0 {
			out[i].UpTo = min(out[i].UpTo, upTo)
			continue
		}
		out = append(out, workloads.Algo{Alg: alg, Variant: v, Params: nodes.Params{}, UpTo: upTo})
	}
	// Scoped parameters name an algorithm that runs.
	for _, p := range ps {
		if p.scope == "" {
			continue
		}
		if _, _, err := nodes.Lookup(p.scope); err != nil || strings.Contains(p.scope, "/") {
			return nil, fmt.Errorf("--param %s.%s: %q is not an algorithm name (electbench list algorithms)", p.scope, p.key, p.scope)
		}
		if !slices.ContainsFunc(out, func(a workloads.Algo) bool { return a.Alg.Name == p.scope }) {
			return nil, fmt.Errorf("--param %s.%s: %s is not among --algo %s", p.scope, p.key, p.scope, list)
		}
	}
	for i := range out {
		a := &out[i]
		for _, p := range ps {
			if p.scope != "" && p.scope != a.Alg.Name {
				continue
			}
			if !slices.ContainsFunc(a.Alg.Params, func(q nodes.Param) bool { return q.Name == p.key }) {
				err := a.Alg.CheckParams(nodes.Params{p.key: p.value})
				if p.scope == "" && len(out) > 1 {
					scope := "ALGORITHM"
					for _, b := range out {
						if slices.ContainsFunc(b.Alg.Params, func(q nodes.Param) bool { return q.Name == p.key }) {
							scope = b.Alg.Name
							break
						}
					}
					return nil, fmt.Errorf("--param %s=%s: %w; to set it for one algorithm only, write %s.%s=%s", p.key, p.value, err, scope, p.key, p.value)
				}
				return nil, fmt.Errorf("--param %s: %w", p, err)
			}
			// A scoped value overrides an unscoped one for its algorithm.
			if _, set := a.Params[p.key]; !set || p.scope != "" {
				a.Params[p.key] = p.value
			}
		}
	}
	return out, nil
}

// param is one --param entry: [scope.]key=value.
type param struct{ scope, key, value string }

func (p param) String() string {
	if p.scope == "" {
		return p.key + "=" + p.value
	}
	return p.scope + "." + p.key + "=" + p.value
}

func parseParams(s string) ([]param, error) {
	var out []param
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return nil, fmt.Errorf("--param %q: want [ALGORITHM.]key=value[,...]", s)
		}
		p := param{key: k, value: v}
		if scope, key, ok := strings.Cut(k, "."); ok {
			if scope == "" || key == "" {
				return nil, fmt.Errorf("--param %q: want [ALGORITHM.]key=value[,...]", kv)
			}
			p.scope, p.key = scope, key
		}
		if slices.ContainsFunc(out, func(q param) bool { return q.scope == p.scope && q.key == p.key }) {
			return nil, fmt.Errorf("--param: %s set twice", k)
		}
		out = append(out, p)
	}
	return out, nil
}

func parseFormats(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		switch f {
		case "csv", "json", "html":
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		default:
			return nil, fmt.Errorf("--format %q: want %s, comma-separated (csv and json: results and summary; html: report.html)", f, orList(resultsFormats))
		}
	}
	return out, nil
}

func runRun(cmd *cobra.Command, o runOptions, args []string) error {
	closeNodeLog, err := registerExternal(cmd, &o)
	if err != nil {
		return err
	}
	defer closeNodeLog()
	if o.trial != "" && o.trace == "" {
		o.trace = filepath.Join(o.out, TraceFile) // the one trial's every event, for its diagram
	}
	p, err := planRun(cmd, o, args)
	if err != nil {
		return err
	}
	if o.dryRun || warnLong(cmd, p, o) {
		return previewPlan(cmd, p, o)
	}
	start := time.Now()
	written, held, err := p.execute(cmd, &o)
	if err != nil {
		return err
	}
	if p.shard != nil {
		// A part of a plan: its rows and its manifest; the summary, the
		// report, the history and the expectations over trials come from
		// the whole, after electbench merge.
		p.manifest.Rows = held
		if err := reports.WriteManifest(o.out, p.manifest); err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "shard %s: %d of the plan's %d trials (%d run now) in %v; results in %s (electbench merge puts the shards together)\n",
			p.shard, held, p.manifest.PlanTrials, written, time.Since(start).Round(time.Millisecond), o.out)
		return nil
	}
	// The plan's trials are done with (40 MB of a 470,000-trial plan):
	// freed, they leave the end the room to read the rows back in.
	p.trials, p.costs = nil, nil
	return p.finishRun(cmd, o, written, start)
}

// finishRun reads back the rows the run wrote to results.csv, once its
// trials are done, for its summary, expectations, report and table. It
// reads them as a stream (reports.FileRows), a pass for each consumer,
// each keeping what it shows, not the rows: held, they were three times
// the file (a 104 MB results.csv of 470,000 rows took a run to 575 MB).
// The summary, table and counts of a fresh run come from the rows as
// they were written (runPlan.fed), not from a pass.
func (p *runPlan) finishRun(cmd *cobra.Command, o runOptions, written int, start time.Time) error {
	rows := reports.FileRows(filepath.Join(o.out, reports.ResultsCSV))
	rb := p.fed
	if rb != nil {
		rb.end()
	} else {
		var err error
		if rb, err = readResultsBack(rows, replayCommand(p.manifest)); err != nil {
			return err
		}
	}
	if err := reports.WriteSummaryFiles(o.out, p.formats, rb.sum); err != nil {
		return err
	}
	judged, err := workloads.ExpectedRows(p.specs, rows)
	if err != nil {
		return err
	}
	fails := workloads.CheckRun(p.specs, judged)
	if err := o.report.finish(cmd, o, p.manifest, p.formats, rows, rb.tally.Rows, fails, workloads.Signatures(p.specs, judged)); err != nil {
		return err
	}
	if err := printRun(cmd.OutOrStdout(), rb, written, start, o.out, o.print); err != nil {
		return err
	}
	var hashErr error
	if o.trial == "" { // a trace-hash names its scenario's run, not one trial picked from the plan
		hashErr = checkRunHashes(cmd, p.specs)
	}
	if err := reportFailures(cmd.ErrOrStderr(), fails, rb.tally.Rows); err != nil || hashErr != nil {
		return cmp.Or(hashErr, err) // a trace that is not the file's says more than its failures
	}
	return rb.nodeErrs.report(cmd.ErrOrStderr())
}

// checkRunHashes runs again the trial of each simulated scenario that gives
// a trace-hash, with its trace, and compares: exit 1 naming both hashes
// when they differ. --seed and --trials make another trial than the one
// the hash names: it is then not checked, and the run says so.
func checkRunHashes(cmd *cobra.Command, specs []*workloads.Spec) error {
	for _, s := range specs {
		if s.TraceHash == "" || s.Runtime == "live" {
			continue
		}
		if cmd.Flags().Changed("seed") || cmd.Flags().Changed("trials") {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: --seed or --trials runs another trial than its trace-hash names: the hash is not checked\n", s.Scenario)
			continue
		}
		if err := shrink.CheckHash(cmd.Context(), s); err != nil {
			if _, ok := errors.AsType[*shrink.HashMismatch](err); ok {
				return failed(err)
			}
			return err
		}
	}
	return nil
}

// printRun prints the summary table, the failing trials under it with
// the command replaying each, and how the run went.
func printRun(out io.Writer, rb *readBack, written int, start time.Time, dir string, form string) error {
	if form == "json" {
		return reports.WriteSummaryJSON(out, rb.sum) // summary.json's document, for a program
	}
	if err := writeRunTable(out, rb, form); err != nil {
		return err
	}
	tally := rb.tally
	fmt.Fprintf(out, "\n%d trials (%d run now) in %v; results in %s\n", tally.Rows, written, time.Since(start).Round(time.Millisecond), dir)
	if n := tally.BudgetHits; n > 0 {
		fmt.Fprintf(out, "%d trials exhausted a budget and were stopped (not live; see the error and budget columns;\n  raise --max-events or --max-inflight)\n", n)
	}
	if n, attempts, kept := tally.Reruns, tally.RerunAttempts, tally.RerunsKept; n > 0 {
		fmt.Fprintf(out, "%d live trials ran again (%d attempts not kept): the host delayed a message of a bounded-delay\n  algorithm past D, outside its model (the reruns column", n, attempts)
		if kept > 0 {
			fmt.Fprintf(out, ";\n  %d kept after the last attempt overran too, their expectations not judged: the host is too loaded\n  for this T, try a larger --latency", kept)
		}
		fmt.Fprintln(out, ")")
	}
	return nil
}

// TraceFile is where a run without --trace keeps the events of the
// trials its report draws (openDefaultTrace).
const TraceFile = "trace.jsonl"

// openDefaultTrace opens DIR/trace.jsonl when the run writes a report, has
// no --trace (which records every trial) and plans a trial defaultTraced
// selects; appended to on --resume.
func openDefaultTrace(o runOptions, formats []string, plan []workloads.Trial) (runTrace, error) {
	only := defaultTraced(plan)
	if !slices.Contains(formats, "html") || !slices.ContainsFunc(plan, only) {
		return runTrace{}, nil
	}
	f, err := openTraceFile(filepath.Join(o.out, TraceFile), o.resume)
	if err != nil {
		return runTrace{}, fmt.Errorf("opening the run's trace: %w", err)
	}
	return runTrace{f: f, only: only}, nil
}

// defaultTraced selects the trials a run records without --trace, for its
// report: every live trial when none has more than reports.DiagramMaxNodes
// processes (a few thousand lines each, for the message-sequence
// diagrams), and the first trial of each configuration of an incident
// scenario (chaos.IsIncident), whose leadership time-line the report
// draws. The report takes the first trial of a configuration the trace
// holds, which --trace's is too: the time-line is the same either way.
func defaultTraced(plan []workloads.Trial) func(workloads.Trial) bool {
	smallLive := !slices.ContainsFunc(plan, func(t workloads.Trial) bool { return t.Live && t.Nodes > reports.DiagramMaxNodes })
	return func(t workloads.Trial) bool {
		return t.Live && smallLive || t.Trial == 0 && chaos.IsIncident(t.Spec.Scenario)
	}
}

// writeRunTable prints the summary table and, under it, the unsafe or not
// live trials (the first failingTrialsShown), each with its replay command.
func writeRunTable(out io.Writer, rb *readBack, form string) error {
	if err := reports.WriteTable(out, rb.sum, reports.TableOptions{Wide: form == "wide", Width: termWidth(out)}); err != nil {
		return err
	}
	return rb.failing.Write(out)
}

// failingTrialsShown caps the unsafe or not live trials listed under the
// table; results.csv and report.html have every one.
const failingTrialsShown = 10

// prepareIdentities mints the proof-of-work identities a pow(b) arrangement
// needs, once for the whole run (they are cached on disk for the next).
func prepareIdentities(cmd *cobra.Command, spec *workloads.Spec) error {
	if spec.IDs.Pow == nil {
		return nil
	}
	dir, err := pow.DefaultCacheDir()
	if err != nil {
		return fmt.Errorf("--ids %s: %w", spec.IDs, err)
	}
	n := slices.Max(spec.Nodes)
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "identities: %d for %s (cached in %s)\n", n, spec.IDs, dir)
	ctx, stop := interrupts(cmd, "minting")
	defer stop()
	params, _ := spec.IDs.PowParams()
	err = spec.IDs.Prepare(ctx, n, pow.CacheOptions{Dir: dir, Progress: mintProgress(stderr, params, time.Now, powIsTerminal(stderr))})
	if err != nil && ctx.Err() != nil {
		return powInterrupted(err) // what was minted is lost: the cache is written whole
	}
	return err
}

// mintProgress reports the minting of a run's identities: on a terminal a
// line redrawn at most every 200 ms, elsewhere a line every logEvery; each
// with the identities minted, the expected work of one (2^b key pairs,
// plus 2^c nonces with a dynamic puzzle), the time so far and the time
// left at the rate so far.
func mintProgress(w io.Writer, p pow.Params, now func() time.Time, terminal bool) func(minted, want int) {
	start, last := now(), now()
	every := logEvery
	if terminal {
		every = 200 * time.Millisecond
	}
	work := fmt.Sprintf("2^%d key pairs", p.Bits)
	if p.DynBits > 0 {
		work += fmt.Sprintf(" and 2^%d nonces", p.DynBits)
	}
	first := true
	return func(minted, want int) {
		t := now()
		if t.Sub(last) < every && minted < want {
			return
		}
		last = t
		elapsed := t.Sub(start)
		line := fmt.Sprintf("identities: %d/%d minted (%s each on average), %v elapsed", minted, want, work, elapsed.Round(time.Second/10))
		if minted < want {
			if first {
				first = false // the first identities include the cache's: no rate yet
			} else {
				line += fmt.Sprintf(", about %v left", time.Duration(float64(elapsed)*float64(want-minted)/float64(minted)).Round(time.Second))
			}
		}
		if terminal {
			fmt.Fprintf(w, "\r%s   ", line)
			if minted == want {
				fmt.Fprintln(w)
			}
			return
		}
		fmt.Fprintln(w, line)
	}
}

// noteLiveUnit tells, before a live scenario with faults runs, that its
// nodes read their parameters in the live unit while the times it gives
// in T stay in T, when the two are far apart: at T = 1ms a partition of
// 300T spans a sixth of the timeouts it spans on the simulator (electbench
// twin runs its simulated side in the live unit for that reason).
func noteLiveUnit(w io.Writer, s *workloads.Spec) {
	T, unit := s.Latency.Mean(), s.Unit()
	if len(s.Faults) == 0 && len(s.Crashes) == 0 || unit < 2*T {
		return
	}
	fmt.Fprintf(w, "%s: live nodes read their parameters (and a heartbeat detector's) in %v (T = %v plus the host allowance), %.3gT, while the faults' times stay in T: against the timeouts they last 1/%.3g as long as on the simulator (a latency ≥ 10ms keeps the unit within 1.5T; electbench twin compares like with like)\n",
		s.Scenario, unit, T, float64(unit)/float64(T), float64(unit)/float64(T))
}
