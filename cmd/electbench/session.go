package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/hostns"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// runPlan is what `electbench run` executes: its specs, simulated first and
// live after them (the bare default run's small faulty cluster among them:
// DESIGN.md, "The command line"), their trials in that order, and which
// part of them this run is.
type runPlan struct {
	specs    []*workloads.Spec
	trials   []workloads.Trial // Index: the place in this list
	formats  []string
	manifest reports.Manifest
	shard    *workloads.Shard             // nil: the whole plan
	inShard  func(t workloads.Trial) bool // whether a trial is this part's
	costs    []float64                    // each trial's cost, when sharding priced them
	hosts    *harness.Hosts               // where the live nodes run (runHosts), or nil
	// fed is a fresh whole run's readBack, fed the rows as the writer
	// hands them on (execute); nil for a resumed run or a shard.
	fed *readBack
}

// planRun reads the run's specs from scenario files or flags and plans
// them, refusing what cannot run before anything starts: bad input, a plan
// the memory cannot hold, a resume into another plan's directory.
func planRun(cmd *cobra.Command, o runOptions, args []string) (*runPlan, error) {
	if err := checkTraceTarget(o.trace); err != nil {
		return nil, err
	}
	sim, live, err := runSpecs(cmd, o, args)
	if err != nil {
		return nil, err
	}
	if err := checkRunFlags(cmd, o, sim, live); err != nil {
		return nil, err
	}
	if sim != nil && o.parallel < 0 {
		return nil, badInputf("--parallel %d: must be at least 1 (or 0 for one per core)", o.parallel)
	}
	p := &runPlan{specs: slices.Concat(sim, live)}
	if p.hosts, err = runHosts(o.hosts, live); err != nil { // checked by checkRunFlags
		return nil, err
	}
	if p.formats, err = parseFormats(o.formats); err != nil {
		return nil, badInput(err)
	}
	if err := guardPlan(o, p.specs); err != nil {
		return nil, err
	}
	for _, spec := range sim {
		p.add(spec, false)
		if err := prepareIdentities(cmd, spec); err != nil {
			return nil, err
		}
	}
	for _, spec := range live {
		noteLiveUnit(cmd.ErrOrStderr(), spec)
		p.add(spec, true)
	}
	if o.trial != "" {
		if err := p.onlyTrial(o); err != nil {
			return nil, err
		}
	}
	p.manifest = newManifest(cmd, o.seed, p.specs, args)
	if p.shard, p.inShard, p.costs, err = o.shardOf(p.trials, &p.manifest); err != nil {
		return nil, err
	}
	hosts := o.netns
	if o.hosts != "" {
		// Each host of the file runs the proxies into its nodes, as a
		// --netns host does; checkRunFlags refuses a file that does not read.
		if hs, err := harness.ReadHosts(o.hosts); err == nil {
			hosts = len(hs.Hosts)
		}
	}
	if err := checkLiveHost(p.liveTrials(), o.toxiproxy, hosts); err != nil {
		return nil, err
	}
	if o.resume {
		if err := checkResume(o.out, &p.manifest, p.trials); err != nil {
			return nil, err
		}
		if old, ok, _ := reports.ReadManifest(o.out); ok && old.Shard != p.manifest.Shard {
			return nil, badInputf("--resume %s: the directory holds shard %q of this plan, not %q", o.out, old.Shard, p.manifest.Shard)
		}
	}
	noteAdhoc(cmd, args)
	return p, nil
}

// checkRunFlags refuses flags that would be accepted and do nothing for
// this run's specs, and warns of a --keep-running that changes nothing
// and a --resume with nothing to resume.
func checkRunFlags(cmd *cobra.Command, o runOptions, sim, live []*workloads.Spec) error {
	if err := checkHistoryDir(o.report.history); err != nil {
		return err
	}
	if err := checkPrint(o.print); err != nil {
		return err
	}
	if o.toxiproxy != "" && len(live) == 0 {
		return badInputf("--toxiproxy: this run has no live trials (--runtime sim); the flag names the toxiproxy-server of live runs")
	}
	if err := checkNetns(o.netns, len(live) > 0, os.Geteuid() == 0); err != nil {
		return err
	}
	if o.agents && o.netns == 0 {
		return badInputf("--agents: the agents run in hosts made of network namespaces; give --netns K")
	}
	if o.hosts != "" && len(live) == 0 {
		return badInputf("--hosts: this run has no live trials (--runtime sim); the flag places live nodes")
	}
	if o.hosts != "" && o.toxiproxy != "" {
		return badInputf("--toxiproxy with --hosts: each host's agent runs a Toxiproxy server of its own, holding the proxies into its nodes")
	}
	hosts, err := runHosts(o.hosts, live)
	if err != nil {
		return err
	}
	if hosts != nil && o.netns > 0 {
		return badInputf("%s and --netns: the nodes run on the hosts of one or the other", hostsSource(o.hosts, live))
	}
	if hosts != nil && o.toxiproxy != "" {
		return badInputf("--toxiproxy with %s: each host's agent runs a Toxiproxy server of its own, holding the proxies into its nodes", hostsSource(o.hosts, live))
	}
	if _, err := parseClockOffsets(o.clocks, o.netns); err != nil {
		return err
	}
	if o.netns > 0 && o.toxiproxy != "" {
		return badInputf("--toxiproxy with --netns: each --netns host runs a Toxiproxy server of its own, holding the proxies into its nodes")
	}
	if err := checkHostFaults(sim, 0); err != nil {
		return err
	}
	nhosts := o.netns
	if hosts != nil {
		nhosts = len(hosts.Hosts)
		if err := checkHostsCuts(live, hosts, hostsSource(o.hosts, live)); err != nil {
			return err
		}
	}
	if err := checkHostFaults(live, nhosts); err != nil {
		return err
	}
	if o.keep && !hasQuorum(slices.Concat(sim, live)) {
		fmt.Fprintln(cmd.ErrOrStderr(), "--keep-running: no quorum algorithm (raft, chubby, zookeeper, etcd-raft) in this run, so it changes nothing: the others end when their election does")
	}
	if o.resume {
		if _, err := os.Stat(filepath.Join(o.out, reports.ResultsCSV)); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(cmd.ErrOrStderr(), "--resume: %s holds no earlier run; running every trial\n", o.out)
		}
	}
	return nil
}

// hasQuorum reports whether any spec runs a quorum algorithm.
func hasQuorum(specs []*workloads.Spec) bool {
	for _, s := range specs {
		for _, a := range s.Algos {
			if a.Alg.Quorum != nil {
				return true
			}
		}
	}
	return false
}

// runSpecs are the run's specs, simulated and live: the scenario files' or
// the flags'.
func runSpecs(cmd *cobra.Command, o runOptions, args []string) (sim, live []*workloads.Spec, err error) {
	specs, err := scenarioSpecs(cmd, args, o)
	if err != nil {
		return nil, nil, err
	}
	if specs == nil {
		spec, err := o.buildSpec()
		if err != nil {
			return nil, nil, err
		}
		if o.runtime == "live" {
			return nil, []*workloads.Spec{spec}, nil
		}
		return []*workloads.Spec{spec}, nil, nil
	}
	for _, s := range specs {
		if s.Runtime == "live" {
			live = append(live, s)
		} else {
			sim = append(sim, s)
		}
	}
	return sim, live, nil
}

// add appends spec's trials to the plan, live ones marked so (an ad-hoc
// spec runs live by --runtime, a scenario's by its runtime, a live-only
// algorithm's trials whatever the runtime: Spec.Plan).
func (p *runPlan) add(spec *workloads.Spec, live bool) {
	plan := spec.Plan()
	if p.trials == nil {
		// The first spec's plan is the run's, marked in place (its indices
		// are its places already): copied, a 470,000-trial plan of 39 MB
		// was twice that as the run started (issue 39).
		for i := range plan {
			plan[i].Live = plan[i].Live || live
		}
		p.trials = plan
		return
	}
	p.trials = slices.Grow(p.trials, len(plan))
	for _, t := range plan {
		t.Index, t.Live = len(p.trials), t.Live || live
		p.trials = append(p.trials, t)
	}
}

// onlyTrial narrows the plan to the one trial --trial names, run alone:
// its seed is the one the whole plan gives it (it depends only on its
// scenario's seed and its number), and no other trial runs.
func (p *runPlan) onlyTrial(o runOptions) error {
	if o.shard != "" || o.shards != 0 || o.resume {
		return badInputf("--trial runs one trial: it cannot be combined with --shard, --shards or --resume")
	}
	ref, err := parseTrialID(o.trial)
	if err != nil {
		return badInput(err)
	}
	t, err := selectTrial(p.trials, o.trial, ref)
	if err != nil {
		return badInput(err)
	}
	t.Index = 0
	p.trials = []workloads.Trial{t}
	return nil
}

// liveTrials are the plan's live trials.
func (p *runPlan) liveTrials() []workloads.Trial {
	var out []workloads.Trial
	for _, t := range p.trials {
		if t.Live {
			out = append(out, t)
		}
	}
	return out
}

// execute runs the plan into o.out (whose rows of an earlier run a resumed
// run keeps) and returns how many trials it ran now and how many rows
// results.csv holds; o.trace becomes the trace the report reads. An
// interrupt and a failure of the infrastructure are exit errors saying how
// to resume.
func (p *runPlan) execute(cmd *cobra.Command, o *runOptions) (written, rows int, err error) {
	// Watched from before anything is written: an interrupt while the
	// files are opened stops the run as one during a trial does, with
	// every file closed, instead of killing the process.
	ctx, stop := interrupts(cmd, "the run")
	defer stop()
	// The writer keeps the rows of an earlier run when resuming (dropping a
	// last line cut short by a crash); those trials are not run again.
	opts := reports.WriterOptions{Append: o.resume}
	if !o.resume && p.shard == nil {
		p.fed = newReadBack(replayCommand(p.manifest))
		opts.Rows = p.fed.add
	}
	w, err := reports.NewWriter(o.out, p.formats, opts)
	if err != nil {
		if o.resume {
			return 0, 0, badInputf("--resume: %w", err)
		}
		return 0, 0, err
	}
	done := w.Done()
	// A trial's key is built of its strings: a fresh run has no rows to
	// look it up in, and a sweep of small trials built it for nothing
	// (issue 42).
	resumed := done.Len() > 0
	if err := reports.WriteManifest(o.out, p.manifest); err != nil {
		w.Close()
		return 0, 0, err
	}
	tr, err := openTrace(*o, p.formats, p.trials)
	if err != nil {
		w.Close()
		return 0, 0, err
	}
	// What killed runs' traces left in TMPDIR goes as this one starts, as
	// a live run's directories and proxies do; what cannot be removed
	// now is for electbench clean, which says why.
	workloads.RemoveDeadSpools()
	obs := &runObserver{w: cmd.ErrOrStderr()}
	clocks, _ := parseClockOffsets(o.clocks, o.netns) // checked by checkRunFlags
	lh := &liveHarness{dir: o.out, url: o.toxiproxy, netns: o.netns, agents: o.agents, hosts: p.hosts, clocks: clocks, trials: p.liveTrials(), setup: obs.setup}
	x := &workloads.Executor{
		Live: lh, Parallel: o.parallel, Trace: writer(tr.f), TraceIf: tr.only, Observer: obs, Costs: p.costs, Flush: w.Flush,
		Skip: func(t workloads.Trial) bool { return !p.inShard(t) || resumed && done.Has(t.Key()) },
	}
	runErr := x.Execute(ctx, p.trials, w.Queue)
	lh.close()
	obs.close()
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	runErr = tr.close(runErr, o)
	if errors.Is(runErr, context.Canceled) {
		fmt.Fprintf(cmd.ErrOrStderr(), "interrupted: %d trials written to %s; rerun with --resume to finish\n", obs.written, o.out)
		return obs.written, 0, &exitError{code: exitInterrupted, err: errors.New("interrupted")}
	}
	if errors.Is(runErr, trial.ErrInfrastructure) {
		fmt.Fprintf(cmd.ErrOrStderr(), "stopped: %d trials written to %s; once the failure below is fixed, rerun with --resume to run the rest\n", obs.written, o.out)
		return obs.written, 0, &exitError{code: exitInfra, err: runErr}
	}
	if runErr != nil {
		return obs.written, 0, runErr
	}
	return obs.written, w.Len(), nil
}

// runTrace is the file a run writes its trials' events to: --trace, every
// trial's; or, without --trace, DIR/trace.jsonl, those of the trials its
// report draws (openDefaultTrace), selected by only. f is nil for none.
type runTrace struct {
	f    *os.File
	only func(workloads.Trial) bool
}

func openTrace(o runOptions, formats []string, plan []workloads.Trial) (runTrace, error) {
	if o.trace != "" {
		f, err := openTraceFile(o.trace, o.resume)
		if err != nil {
			return runTrace{}, badInputf("--trace: %w", err)
		}
		return runTrace{f: f}, nil
	}
	return openDefaultTrace(o, formats, plan)
}

// checkTraceTarget refuses, before anything runs, a --trace that is not a
// regular file: the report reads the trace back after the run, and a
// FIFO nobody reads again (or a device) would hang it or lose the events.
func checkTraceTarget(path string) error {
	if path == "" {
		return nil
	}
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return badInputf("--trace %s: not a regular file (%s): the trace is read back after the run; name a file", path, fi.Mode().Type())
	}
	return nil
}

// openTraceFile opens a run's trace: truncated for a new run; for a
// resumed one appended to, as results.csv is, after cutting a last line a
// killed run left unfinished, so the earlier trials' events stay whole
// and the file stays one JSON object a line.
func openTraceFile(path string, resume bool) (*os.File, error) {
	if !resume {
		return os.Create(path)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := cutPartialLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// cutPartialLine truncates f after its last newline and leaves its offset
// at the end, reading back from the end in small blocks (a trace may be
// gigabytes).
func cutPartialLine(f *os.File) error {
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	keep := int64(0)
	for at := end; at > 0 && keep == 0; {
		n := min(at, int64(len(buf)))
		at -= n
		if _, err := f.ReadAt(buf[:n], at); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep = at + int64(i) + 1
		}
	}
	if keep == end {
		return nil
	}
	if err := f.Truncate(keep); err != nil {
		return err
	}
	_, err = f.Seek(keep, io.SeekStart)
	return err
}

// close closes the trace file, returning runErr or else the error closing
// it; o.trace becomes the default trace when there is one (what the report
// reads).
func (tr runTrace) close(runErr error, o *runOptions) error {
	if tr.f == nil {
		return runErr
	}
	if err := tr.f.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("%s: %w", tr.f.Name(), err)
	}
	o.trace = tr.f.Name()
	return runErr
}

// writer is f as an io.Writer, nil when f is (a nil *os.File in an
// interface is no nil writer).
func writer(f *os.File) io.Writer {
	if f == nil {
		return nil
	}
	return f
}

// runObserver draws a run's progress and ETA (progress.go) from what the
// executor tells it, and counts the trials written.
type runObserver struct {
	w       io.Writer
	prog    progress // from Begin
	trialOf func(harness.Setup) int
	written int
}

func (r *runObserver) Begin(toRun []workloads.Trial, eta *workloads.ETA) {
	r.prog = newProgress(r.w, len(toRun), eta)
	r.trialOf = liveTrialNumbers(toRun)
}

func (r *runObserver) Done(_ workloads.Trial, row reports.Row) {
	r.written++
	r.prog.Done(row)
}

// setup tells the progress where a live trial's set-up is
// (harness.Options.Progress).
func (r *runObserver) setup(s harness.Setup) { r.prog.Setup(s, r.trialOf(s)) }

func (r *runObserver) close() {
	if r.prog != nil {
		r.prog.Close()
	}
}

// liveTrialNumbers finds the trial the harness is setting up among a run's
// live trials, by its configuration and seed, and returns its number
// among its configuration's (the trial column), or -1.
func liveTrialNumbers(trials []workloads.Trial) func(harness.Setup) int {
	type config struct {
		algorithm, variant string
		nodes              int
		seed               uint64
	}
	num := map[config]int{}
	for _, t := range trials {
		if t.Live {
			num[config{t.Algo.Alg.Name, t.Algo.Variant, t.Nodes, t.Seed}] = t.Trial
		}
	}
	return func(s harness.Setup) int {
		if k, ok := num[config{s.Algorithm, s.Variant, s.Nodes, s.Seed}]; ok {
			return k
		}
		return -1
	}
}

// checkLiveHost refuses, before anything is written or started, a live
// trial whose cluster this host, or the --netns or --hosts hosts, cannot hold
// (harness.CheckHosts: links, memory, descriptors), saying why; url is
// --toxiproxy's.
func checkLiveHost(trials []workloads.Trial, url string, hosts int) error {
	for _, t := range trials {
		s := t.Spec
		all := len(s.Faults) > 0 || len(s.Crashes) > 0 || s.Detector.Kind == "heartbeat"
		if err := harness.CheckHosts(t.Nodes, t.Algo.Alg.Topology, all, url == "", hosts); err != nil {
			return badInputf("--nodes %d (%s): %w", t.Nodes, t.Algo.Alg.Name, err)
		}
	}
	return nil
}

// liveHarness is the live harness as the executor's live runtime: node
// processes through the Toxiproxy at url (embedded when ""), their
// diagnostics logged to DIR/live.log and their set-ups told to setup. It
// is opened before the first live trial that runs, and not at all when
// none does; planRun has refused what this host cannot hold
// (checkLiveHost).
type liveHarness struct {
	dir, url string
	netns    int               // hosts made of network namespaces, or 0
	agents   bool              // the nodes run through an agent in each host
	hosts    *harness.Hosts    // hosts of agents started by hand (--hosts, a scenario's hosts:), or nil
	clocks   []time.Duration   // their clocks' shifts (--clock-offsets), or none
	trials   []workloads.Trial // the plan's live trials
	setup    func(harness.Setup)
	log      *os.File
	h        *harness.Runtime
	rec      *harness.Recorder
}

// Open refuses a server algorithm this host cannot run, saying why, before
// any starts, then starts the harness.
func (l *liveHarness) Open(ctx context.Context) error {
	for _, t := range l.trials {
		if err := harness.CheckSystem(t.Algo.Alg); err != nil {
			return badInputf("%w", err)
		}
	}
	log, err := os.OpenFile(filepath.Join(l.dir, "live.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	opt := harness.Options{Toxiproxy: l.url, Netns: l.netns, Agents: l.agents, Hosts: l.hosts, ClockOffsets: l.clocks, Log: log, Progress: l.setup}
	h, err := harness.New(ctx, opt)
	if err != nil {
		log.Close()
		return err
	}
	l.log, l.h, l.rec = log, h, &harness.Recorder{R: h}
	return nil
}

func (l *liveHarness) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	return l.rec.Run(ctx, cfg)
}

func (l *liveHarness) Capabilities() trial.Capabilities { return l.rec.Capabilities() }

// close stops the harness (its processes and proxies) and its log, if
// opened.
func (l *liveHarness) close() {
	if l.h != nil {
		l.h.Close()
		l.log.Close()
	}
}

// checkHostFaults refuses, in one line, a fault of specs that acts on
// hosts (host(h), host-partition) which a run on hosts hosts (0: none, as
// every simulated run) does not have.
func checkHostFaults(specs []*workloads.Spec, hosts int) error {
	for _, s := range specs {
		for _, c := range s.Crashes {
			if err := c.Fault.CheckHosts(hosts); err != nil {
				return badInputf("--crash %s: %w", c, err)
			}
		}
		for i := range s.Faults {
			f := &s.Faults[i]
			if err := f.CheckHosts(hosts); err != nil {
				return badInputf("%s: fault %d (%s, line %d): %w", s.Scenario, i, f.Kind, f.Line, err)
			}
		}
	}
	return nil
}

// checkNetns refuses a --netns that cannot be honoured, in one line:
// negative, beyond one bridge's addresses, on a run with no live trial,
// or without root (namespaces, veths and a bridge need CAP_NET_ADMIN and
// CAP_SYS_ADMIN).
func checkNetns(k int, live, root bool) error {
	switch {
	case k == 0:
		return nil
	case k < 0 || k > hostns.MaxHosts:
		return badInputf("--netns %d: want 1 to %d hosts", k, hostns.MaxHosts)
	case !live:
		return badInputf("--netns: this run has no live trials (--runtime sim); the flag places live nodes")
	case !root:
		return badInputf("--netns %d: hosts made of network namespaces need root", k)
	}
	return nil
}
