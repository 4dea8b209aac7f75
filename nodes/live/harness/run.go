package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/internal/gcfloor"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// liveTrial is one live trial's coordinator: it sets the trial up, drives
// its run and ends it, over parts that own their own state, each reached
// through narrow calls and none calling back into it but through the
// small interfaces they declare (faultHost): the processes (procs.go), the
// links (links.go), the faults (faults.go), the event log and its counts
// (record.go), the clock and its scheduled actions (schedule.go) and the
// settling rules (settle.go). Only its run goroutine touches it, except
// for the channels.
type liveTrial struct {
	opt    *Options
	kept   *kept    // the runtime's cluster of this size (kept.go)
	srv    *servers // the runtime's Toxiproxy servers
	ctx    context.Context
	cfg    trial.Config
	n      int
	T      time.Duration // configured one-way latency: the record's unit
	tAlg   time.Duration // the unit the algorithms' parameters are read in: T plus the allowance
	det    trial.Detector
	serial int // the runtime's trials, counted from 1: named in the log
	res    Result
	errs   []string

	procs  *procs
	links  *links
	faults *faults
	log    *eventLog
	clock  *schedule
	settle *settling
	prog   *setupProgress
	// stopping: teardown began, the run's counts are final.
	stopping bool
}

func newLiveTrial(opt *Options, k *kept, srv *servers, cfg trial.Config, fs *faults, serial int) *liveTrial {
	n := cfg.Ranks.Len()
	lt := &liveTrial{opt: opt, kept: k, srv: srv, ctx: context.Background(), cfg: cfg, n: n, T: cfg.T(), serial: serial,
		faults: fs, clock: newSchedule()}
	lt.procs = newProcs(opt, k.placed(), lt.logf)
	lt.links = newLinks(n, k, lt.fail)
	lt.settle = &settling{procs: lt.procs, links: lt.links, budget: cfg.BudgetOrDefault(), ownClocks: cfg.Algorithm.LiveOnly != ""}
	lt.tAlg = trial.LiveUnit(lt.T, opt.Allowance)
	lt.det = cfg.DetectorIn(lt.tAlg)
	if lt.det.Kind == "heartbeat" {
		lt.settle.quiet = lt.det.Tau + 2*lt.det.P + 4*lt.T
	}
	settle, err := trial.NewSettling(&cfg, nodes.Config{Variant: cfg.VariantName(), Params: cfg.Params, N: n, T: lt.tAlg, D: cfg.BoundIn(lt.tAlg)})
	if err != nil {
		lt.fail("%v", err)
	}
	if settle != nil {
		lt.settle.rule, lt.settle.decisions = settle, trial.NewDecisions(n)
	}
	lt.prog = newSetupProgress(opt.Progress, Setup{Trial: serial, Algorithm: cfg.Algorithm.Name, Variant: cfg.VariantName(), Nodes: n, Seed: cfg.Seed})
	lt.res.Info.Toxiproxy = srv.clients[0].URL()
	fs.attach(&lt.cfg, lt.det, lt, lt.procs, lt.links, lt.clock)
	return lt
}

func (lt *liveTrial) logf(format string, args ...any) {
	if lt.opt.Log != nil {
		fmt.Fprintf(lt.opt.Log, "live: trial %d: "+format+"\n", append([]any{lt.serial}, args...)...)
	}
}

func (lt *liveTrial) fail(format string, args ...any) {
	lt.errs = append(lt.errs, fmt.Sprintf(format, args...))
}

// failure is why the trial cannot be judged faithfully, or nil.
func (lt *liveTrial) failure() error {
	if len(lt.errs) == 0 {
		return nil
	}
	return errors.New("live: " + strings.Join(lt.errs, "; "))
}

func (lt *liveTrial) now() time.Duration { return lt.clock.now() }

// command sends a node a command, expecting the step it answers start,
// initiate and suspect with, and from a start on, its clock.
func (lt *liveTrial) command(p *proc, c live.Command) {
	lt.procs.write(p, c)
	switch c.Type {
	case "start", "initiate", "suspect":
		lt.settle.busy(p.pos, func() { lt.settle.expect[p.pos]++ }) // the node answers with a step
	}
	if c.Type == "start" {
		lt.log.clockStarts(p, lt.now())
	}
}

// calibrate estimates the clocks of the hosts the nodes run on, if more
// than this one, before the start (clock.go): the estimates go to the
// result, the schedule (each node's t0 on its host's clock) and the
// record (the widest error, the row's clock_error_s).
func (lt *liveTrial) calibrate(ctx context.Context) {
	h, ok := lt.procs.hosts.placement.(hosted)
	if !ok {
		return
	}
	ways, err := lt.procs.roundTrips(ctx, h, lt.n, lt.handle)
	if err != nil {
		lt.fail("estimating the hosts' clocks: %v", err)
		return
	}
	rec := &lt.log.rec
	lt.res.Clocks, lt.clock.skew, rec.ClockError, rec.Clocked = estimates(ways, h, lt.n)
	lt.logf("hosts' clocks, ahead of the harness's: %v", lt.res.Clocks)
}

// recount recomputes the settled bookkeeping after a position's or a
// link's state changed.
func (lt *liveTrial) recount() { lt.settle.recount() }

// run executes the trial and always releases its processes, proxies and
// files.
//
// Where its time goes, in the log: set-up, the run, and the teardown
// (which keeps the processes of a clean trial), the harness's own share
// being all but the run (and the cluster's reset, Runtime.release).
func (lt *liveTrial) run(ctx context.Context) (res *Result, err error) {
	lt.ctx, lt.faults.ctx = ctx, ctx
	began := time.Now()
	var ran, executed time.Time
	defer func() {
		if p := recover(); p != nil {
			lt.fail("panic: %v", p)
		}
		ended := time.Now()
		lt.teardown()
		res, err = lt.finish()
		if !executed.IsZero() {
			lt.logf("set up in %v, ran %v, torn down in %v", ran.Sub(began).Round(time.Millisecond),
				executed.Sub(ran).Round(time.Millisecond), time.Since(ended).Round(time.Millisecond))
		}
	}()
	if serr := lt.setup(ctx); serr != nil {
		lt.fail("%v", serr)
		return
	}
	ran = time.Now()
	lt.execute(ctx)
	executed = time.Now()
	return
}

// --- setup ---------------------------------------------------------------------

func (lt *liveTrial) setupTimeout() time.Duration {
	if d := lt.opt.SetupTimeout; d > 0 {
		return d
	}
	return 30*time.Second + time.Duration(lt.n)*time.Second
}

// setupHeadroom is the memory a link's set-up may take in the harness
// before the collector runs (gcfloor.Hold): its proxy's relays keep about
// 130 KiB, and the host's guard counts proxyBytes a link (limits.go).
const setupHeadroom = 256 << 10

func (lt *liveTrial) setup(ctx context.Context) error {
	n := lt.n
	ctx, cancel := context.WithTimeout(ctx, lt.setupTimeout())
	defer cancel()
	// The set-up builds what the trial keeps, the proxies' relays above
	// all (Toxiproxy's buffers: 0.5 GB for the 4,032 links of N = 64),
	// and collecting while that grows marks the relays' goroutine stacks
	// again at every doubling (gctrace at N = 64: 15 collections a run,
	// 0.2-0.6 CPU-s each during the set-up on a loaded host; 2 with the
	// hold): the collector waits for its end, up to a memory limit of
	// setupHeadroom a link, and never less than gcfloor.Floor above what
	// the runtime holds: a limit just above it would have the collector
	// run again and again (a small cluster's set-up, the simulated
	// trials an executor runs beside a live one).
	defer gcfloor.Hold(max(uint64(n*(n-1))*setupHeadroom, gcfloor.Floor))()
	began := time.Now()
	var cpu setupCPU
	cpu.mark(nil)

	lt.prog.stage(Starting, 0, n)
	if ps := lt.kept.takeWarm(lt.warmable(), lt.opt, lt.logf); ps != nil {
		lt.procs = ps
		lt.settle.procs, lt.faults.procs = ps, ps
		cpu.rebase(ps.pids())
		lt.prog.progress(n)
	} else if err := lt.startAll(ctx); err != nil {
		return err
	}
	lt.res.Info.Dir = lt.procs.dir
	if err := lt.procs.assign(&lt.cfg.Ranks); err != nil {
		return err
	}
	lt.res.Ranks = lt.procs.ranks
	return lt.continueSetup(ctx, began, &cpu)
}

// startAll starts a node process for every spawn index, with a new
// directory for their identities, and waits for each one's hello.
func (lt *liveTrial) startAll(ctx context.Context) error {
	n := lt.n
	dir, err := os.MkdirTemp("", "electbench-live-")
	if err != nil {
		return err
	}
	lt.procs.dir = dir
	lt.res.Info.Dir = dir
	if lt.srv.embedded == nil {
		// Only an external server can stop while the harness runs. The
		// embedded one is this process: under load (thousands of
		// connections in their handshakes at once, on a busy host) it
		// answers late, and a late answer is no failure of the
		// infrastructure.
		lt.procs.health = func(ctx context.Context) error { return lt.srv.clients[0].Check(ctx, healthTimeout) }
	}
	if err := lt.procs.spawnAll(n, lt.kept.files); err != nil {
		return err
	}
	hellos := 0
	for hellos < n {
		rep, err := lt.procs.next(ctx)
		if err != nil {
			return fmt.Errorf("waiting for %d nodes to start: %w", n-hellos, err)
		}
		switch {
		case rep.eof:
			return fmt.Errorf("node %d exited while starting: %s", rep.p.idx, rep.p.tail.String())
		case rep.r.Type == "hello":
			if err := lt.procs.hello(rep.p, &rep.r); err != nil {
				return err
			}
			hellos++
			lt.prog.progress(hellos)
		}
	}
	if err := lt.kept.repoint(ctx, lt.procs.all); err != nil {
		return fmt.Errorf("pointing the proxies at the nodes' new sockets: %w", err)
	}
	return nil
}

// newLog makes the trial's event log, once the ranks are known.
func (lt *liveTrial) newLog() {
	lt.log = newEventLog(lt.n, &lt.cfg, lt.T, lt.det)
	lt.log.res, lt.log.procs, lt.log.clock, lt.log.fail = &lt.res, lt.procs, lt.clock, lt.fail
	lt.faults.log = lt.log
	lt.res.Sent, lt.res.Received, lt.res.Dropped = newCounts(), newCounts(), newCounts()
	lt.res.DeliveredFrom = make([]int64, lt.n)
	lt.res.Stats = make([]*live.Stats, lt.n)
}

// continueSetup is the set-up of the nodes once they are identified.
// cpu has its first mark, at began.
func (lt *liveTrial) continueSetup(ctx context.Context, began time.Time, cpu *setupCPU) error {
	n, ps := lt.n, lt.procs
	ps.positions()
	lt.settle.init(n)
	if s, ok := lt.cfg.Events.(trial.SetupSink); ok {
		s.Setup(trial.Setup{Ranks: nodes.RanksOf(ps.ranks), Unit: lt.tAlg})
	}
	lt.newLog()
	lt.log.rec.Bound = lt.cfg.BoundIn(lt.tAlg)
	lt.recount()

	// Faults from the start, before anyone boots: the processes crashed
	// then never run (they get no links); link faults wait for the links.
	if lt.faults.tl != nil {
		lt.faults.tl.Begin(injector{lt.faults})
	}
	identified := time.Now()
	cpu.mark(ps.pids())
	if err := lt.makeLinks(ctx); err != nil {
		return err
	}
	proxied := time.Now()
	cpu.mark(ps.pids())
	if err := lt.linkAll(ctx); err != nil {
		return err
	}
	cpu.mark(ps.pids())
	// A node whose identity was refused takes no part: it is stopped and
	// treated as crashed at the start (its peers' detectors suspect it as
	// they would such a crash).
	for p := range n {
		if ps.refused[p] && ps.alive[p] {
			lt.res.Refused = append(lt.res.Refused, p)
			lt.faults.crash(p, false)
		}
	}
	for _, p := range ps.all {
		lt.res.Info.PIDs = append(lt.res.Info.PIDs, p.pid)
		lt.res.Info.NodeAddrs = append(lt.res.Info.NodeAddrs, p.addr)
	}
	// Where set-up time goes, in the log: processes started and
	// identified, proxies made or found and their latencies set, links up.
	on := ""
	if k := len(lt.kept.servers); k > 1 {
		on = fmt.Sprintf(" on %d Toxiproxy servers", k)
	}
	up := "up"
	if ps.epoch > 0 {
		up = "kept"
	}
	lt.logf("%d processes %s in %v, %d proxies ready%s in %v, linked in %v", n, up, identified.Sub(began).Round(time.Millisecond),
		len(lt.links.list), on, proxied.Sub(identified).Round(time.Millisecond), time.Since(proxied).Round(time.Millisecond))
	lt.logf("set-up CPU, harness + nodes: %s", cpu.String(up, "proxies", "links"))
	lt.res.Info.Servers = urlsOf(lt.kept.servers)
	lt.res.Info.ServerPIDs = lt.srv.pidsOf(lt.kept.servers)
	if lt.opt.Observe != nil {
		lt.opt.Observe(lt.res.Info)
	}
	lt.prog.stage(Running, 0, 0)
	return nil
}

// makeLinks gives every directed link the run can use a proxy, with its
// latency (links.make).
func (lt *liveTrial) makeLinks(ctx context.Context) error {
	ps := lt.procs
	idx := make([]int, lt.n)
	for pos, p := range ps.byPos {
		idx[pos] = p.idx
	}
	return lt.links.make(ctx, linkPlan{
		topo:     lt.cfg.Algorithm.Topology,
		ringOnly: ringOnly(lt.cfg.Algorithm.Topology, len(lt.cfg.Faults), lt.det.Kind == "heartbeat", len(lt.opt.Forge) > 0),
		alive:    ps.alive, idx: idx, latency: lt.cfg.Latency, seed: lt.cfg.Seed, embedded: lt.srv.embedded != nil,
	}, lt.prog, &lt.res.Info)
}

// linkAll configures every live node, each of which links once
// configured, and waits until every live node has every outgoing link up
// or refused.
func (lt *liveTrial) linkAll(ctx context.Context) error {
	ps := lt.procs
	lt.prog.stage(Linking, 0, len(lt.links.list))
	// New processes learn which identities the harness checked; kept
	// ones learnt it with their first configure.
	var vouched, certs []string
	if ps.epoch == 0 {
		vouched, certs = ps.vouched()
	}
	for p := range lt.n {
		if ps.alive[p] {
			lt.configure(ps.byPos[p], vouched, certs)
		}
	}
	// Links come up one "link" line each; a kept process's links, up
	// already, come all at once with its "linked".
	linked, counted := 0, make(map[*proc]int, lt.n)
	for !lt.allLinked() {
		rep, err := ps.next(ctx)
		if err != nil {
			// Links that do not come up within the set-up bound are the
			// host's or Toxiproxy's failure, not the algorithm's, which
			// has not started: the trial is not recorded, and --resume
			// runs it again.
			lt.links.infra = fmt.Errorf("link set-up did not complete, %d of %d links up: %w", linked, len(lt.links.list), err)
			return fmt.Errorf("waiting for the nodes to link: %w", err)
		}
		lt.handle(rep)
		switch {
		case rep.eof:
		case rep.r.Type == "link":
			counted[rep.p]++
			linked++
			lt.prog.progress(linked)
		case rep.r.Type == "linked":
			if all := rep.r.Up + rep.r.Refused; all > counted[rep.p] {
				linked += all - counted[rep.p]
				counted[rep.p] = all
				lt.prog.progress(linked)
			}
		}
	}
	return nil
}

// configure sends a node its run, with the identities and ephemeral
// keys' certificates the harness vouches for (procs.vouched) to a process
// new to the cluster.
func (lt *liveTrial) configure(p *proc, vouched, certs []string) {
	cfg := &live.Config{
		Algorithm: lt.cfg.Algorithm.Name, Variant: lt.cfg.VariantName(), Params: lt.cfg.Params,
		T: lt.tAlg, D: lt.cfg.BoundIn(lt.tAlg), Seed: lt.cfg.Seed, Epoch: lt.procs.epoch, Self: p.pos, SelfLatency: lt.T,
		MinBits: lt.procs.bits(), Puzzle: new(lt.procs.puzzle()), Links: lt.links.outgoing(p.pos),
		External: lt.cfg.Algorithm.External, Vouched: vouched, VouchedCerts: certs,
		// Step lines carry the messages' ranks only when the sink reads
		// them (a trace does; a quorum checker reads kinds and counters).
		Trace: lt.log.trace,
	}
	for _, r := range lt.procs.ranks {
		cfg.Ranks = append(cfg.Ranks, r.String())
	}
	if lt.det.Kind == "heartbeat" {
		cfg.Detector = live.Detector{Kind: "heartbeat", P: lt.det.P, Tau: lt.det.Tau}
	}
	lt.command(p, live.Command{Type: "configure", Config: cfg})
}

func (lt *liveTrial) allLinked() bool {
	for pos, p := range lt.procs.byPos {
		if lt.procs.alive[pos] && !p.linked {
			return false
		}
	}
	return true
}

// --- the run -------------------------------------------------------------------

// execute starts the run at t0 and drives it until it settles, its deadline
// passes or ctx ends.
func (lt *liveTrial) execute(ctx context.Context) {
	ps, fs, st := lt.procs, lt.faults, lt.settle
	// Link faults from the start are in place before anyone starts.
	fs.applyDeferred(ctx)
	lt.calibrate(ctx)
	lt.clock.begin(live.Mono())
	for p := range lt.n {
		if ps.alive[p] {
			lt.command(ps.byPos[p], live.Command{Type: "start", T0: lt.clock.t0Of(ps.byPos[p].idx)})
		}
	}
	// Crashes at the start: exactly the initiators (everyone, for
	// algorithms that all start at once) suspect them at time 0, before
	// they initiate; everyone else after D (perfect detector).
	for _, c := range fs.downAtStart {
		fs.detect(c, true)
	}
	for _, p := range lt.cfg.Initiators {
		if ps.alive[p] {
			lt.command(ps.byPos[p], live.Command{Type: "initiate"})
		}
	}
	lt.clock.armEarly()
	if fs.tl != nil {
		fs.tl.Arm(lt.cfg.Algorithm.StartsAll)
	}
	stop := time.NewTimer(lt.cfg.DeadlineOrDefault())
	defer stop.Stop()
	recheck := time.NewTimer(time.Hour)
	defer recheck.Stop()
	graced := false // the deadline was put off by stepGrace
	for {
		lt.clock.runDue()
		if st.atRest(lt.now(), lt.T, lt.clock.pending) {
			st.quiescent = true
			return
		}
		if st.rule != nil {
			if now := lt.now(); st.rule.Due(now) && st.steady(now, fs.tl.Settled(), lt.clock.pending) {
				st.settled = true
				return
			}
		}
		switch {
		case st.quiet > 0 || lt.links.anyLossy:
			recheck.Reset(max(st.lastCore+st.quietPeriod(lt.T)-lt.now(), time.Millisecond))
		case st.rule != nil:
			recheck.Reset(max(st.rule.Next()-lt.now(), time.Millisecond))
		}
		select {
		case rep := <-ps.reports:
			lt.handle(rep)
			if st.passedBudget(lt.log.steps, lt.log.inFlight, lt.now()) {
				return
			}
			if graced && st.stepFailed {
				st.atDeadline = st.unsettled(lt.clock.pending)
				return
			}
		case f := <-lt.clock.actions:
			lt.clock.pending--
			st.electionEvent(lt.now()) // a fault starting or healing, a detection
			f()
		case <-recheck.C:
		case <-stop.C:
			if g := lt.stepGrace(); g > 0 && !graced {
				graced = true
				stop.Reset(g)
				continue
			}
			st.atDeadline = st.unsettled(lt.clock.pending)
			return
		case <-ctx.Done():
			lt.fail("interrupted: %v", ctx.Err())
			return
		}
	}
}

// stepGrace is how long past its deadline a trial of a node program waits
// when a process has not answered a command: its program may be stuck in
// a step, and the node reports that step's failure once the step timeout
// has passed, naming the node and the step, where the deadline alone would
// say only "not settled". 0 when no command is unanswered.
func (lt *liveTrial) stepGrace() time.Duration {
	ext, st := lt.cfg.Algorithm.External, lt.settle
	if ext == nil || st.stepFailed {
		return 0
	}
	for p, e := range st.expect {
		if e > 0 && !lt.procs.gone[p] {
			return ext.StepTimeout + time.Second // the report's way back
		}
	}
	return 0
}

// handle processes one line (or the end) of a node.
func (lt *liveTrial) handle(rep nodeReport) {
	p, ps := rep.p, lt.procs
	current := ps.current(p)
	if rep.eof {
		lt.log.procEnded(p)
		if !p.killed && !p.stopped && current && ps.alive[p.pos] {
			lt.fail("node %d exited unexpectedly: %s", p.pos, p.tail.String())
			lt.faults.crash(p.pos, false)
		}
		return
	}
	r := &rep.r
	switch r.Type {
	case "linked":
		p.linked = true
		if ps.restarting[p.pos] && current {
			lt.restarted(p)
		}
	case "refused":
		// A node's word proves nothing (a dishonest node may say it of
		// anyone; a proxy pointed elsewhere makes an honest one say it of
		// the peer it never reached): it is kept in the row as a dispute,
		// and only the harness's own check of an identity excludes a node
		// (procs.hello). A refusal of the reporter by its peer names
		// nobody new: the peer reports its own side of it.
		if !r.ByPeer && r.Peer >= 0 && r.Peer < lt.n && current && p.pos >= 0 && r.Peer != p.pos {
			d := trial.Dispute{By: p.pos, Of: r.Peer, Path: r.Path}
			if !slices.Contains(lt.res.Disputes, d) {
				lt.res.Disputes = append(lt.res.Disputes, d)
			}
		}
	case "step":
		if err := live.ResolveExternal(r); err != nil {
			lt.fail("node %d: %v", p.pos, err)
			return
		}
		if current {
			lt.growCounts()
			lt.step(p, r)
		}
	case "synced":
		lt.log.synced(p, time.Duration(r.T))
	case "maint":
		if current && r.Stats != nil {
			lt.log.maint[p.pos] = r.Stats.Sent
		}
	case "stats":
		// The first answer is the trial's: a process reset, then stopped
		// (its cluster not kept after all), answers again with nothing.
		if current && !p.stopped {
			lt.res.Stats[p.pos] = r.Stats
		}
		p.stopped = true
	case "error":
		lt.fail("node %d: %s", p.pos, r.Error)
		lt.settle.stepFailed = true
	case "hello":
		if ps.restarting[p.pos] && current {
			if err := ps.hello(p, r); err != nil {
				lt.fail("%v", err)
				return
			}
			lt.rewire(p)
		}
	}
}

// restarted starts a restarted process's machine once it is linked.
func (lt *liveTrial) restarted(p *proc) {
	lt.procs.restarted(p.pos)
	lt.recount()
	// A fresh machine knows no leader: it must decide again.
	lt.log.proc(lt.now(), trial.EvRestart, p.pos)
	if st := lt.settle; st.rule != nil {
		st.decisions.Forget(p.pos)
		st.electionEvent(lt.now())
	}
	lt.faults.retell(p.pos)
	lt.command(p, live.Command{Type: "start", T0: lt.clock.t0Of(p.idx), Restart: true})
}

// rewire points the proxies into a restarted process at its new address,
// forgets what was lost with the old one, and configures it.
func (lt *liveTrial) rewire(p *proc) {
	// The run's context: an interrupt must not wait for a Toxiproxy that
	// stopped answering (#39 item 12: a call abandoned only at its own
	// deadline held Ctrl-C for 10 s).
	ctx, cancel := context.WithTimeout(lt.ctx, lt.setupTimeout())
	defer cancel()
	into := lt.links.rewire(ctx, p.pos, p.addr)
	lt.settle.armed[p.pos], lt.settle.expect[p.pos] = 0, 0
	lt.recount()
	vouched, certs := lt.procs.vouched()
	lt.configure(p, vouched, certs)
	lt.faults.redial(into)
}

// step accounts for one event a machine handled: its events go to the log
// (record.go), and what drives the run — settling, the faults' triggers —
// is updated as it comes.
func (lt *liveTrial) step(p *proc, r *live.Report) {
	pos, st := p.pos, lt.settle
	lt.log.countNodeSent(pos, r)
	if lt.stopping {
		// Once teardown begins the run is over: what nodes still do while
		// their peers stop (a perpetual algorithm's heartbeats to a peer
		// already gone) is not part of it.
		return
	}
	n := lt.n
	at := time.Duration(r.T)
	st.lastCore = max(st.lastCore, lt.now())
	st.busy(pos, func() {
		st.armed[pos] = r.Armed
		if r.Ev == "start" || r.Ev == "initiate" || r.Ev == "suspect" && lt.det.Kind != "heartbeat" {
			st.expect[pos]--
		}
	})
	leaders := lt.log.decode(p, at, r)
	if r.Ev == "recv" && r.From >= 0 && r.From < n {
		k := r.From*n + pos
		st.count(k, func() { lt.links.recv[k]++ })
		lt.res.DeliveredFrom[r.From]++
	}
	for i := range r.Sent {
		if m := &r.Sent[i]; !m.Dropped && !m.Lost && m.To >= 0 && m.To < n {
			k := pos*n + m.To
			st.count(k, func() { lt.links.sent[k]++ })
		}
	}
	lt.faults.stepped(at, r, leaders)
	if st.rule != nil {
		lt.settleStep(pos, r, leaders)
	}
}

// settleStep tells the settling rule of a step's election events: an
// initiation, a suspicion, an election timer expiring, an election message
// sent, a decision (kept as the process's latest belief).
func (lt *liveTrial) settleStep(pos int, r *live.Report, leaders []nodes.Rank) {
	event := r.Ev == "initiate" || r.Ev == "suspect" || r.Ev == "timer" && r.Timer.IsElection() || len(leaders) > 0
	for i := range r.Sent {
		event = event || r.Sent[i].Kind.IsElection()
	}
	now := lt.now()
	for _, leader := range leaders {
		lt.settle.decisions.Decided(pos, &leader, now)
	}
	if event {
		lt.settle.rule.Event(now)
	}
}

// --- the end -------------------------------------------------------------------

// How a live trial ends: its processes stopped, or kept for
// the next trial when it leaves them fit (warm.go), and what the run
// reported turned into its result.

// teardown releases everything: processes (stopped politely if they run,
// killed in any case), proxies, files. It runs on every exit path.
func (lt *liveTrial) teardown() {
	lt.stopping = true
	defer lt.clock.stop()
	lt.faults.healHostCuts()
	if lt.keepable() && lt.resetAll() {
		lt.kept.warm = &warm{procs: lt.procs}
		return
	}
	lt.stopAll()
	if dir := lt.procs.dir; dir != "" {
		os.RemoveAll(dir) // best effort: it holds only the identities the nodes minted
	}
}

// stopAll ends every process: those that run are asked to stop (and
// report their stats, within a bound), then every one is killed and its
// pipes closed, and the readers are waited for. An interrupted trial
// (its context ended: Ctrl-C) is not asked: its record is not kept, and
// the run must end at once.
func (lt *liveTrial) stopAll() {
	running := 0
	for pos, p := range lt.procs.byPos {
		if lt.ctx.Err() != nil {
			break
		}
		if p != nil && !p.killed && lt.procs.alive != nil && lt.procs.alive[pos] {
			if lt.procs.paused[pos] {
				p.ctl.resume()
			}
			lt.procs.write(p, live.Command{Type: "stop"})
			running++
		}
	}
	wait := time.NewTimer(stopWait)
	for running > 0 {
		select {
		case rep := <-lt.procs.reports:
			lt.handle(rep)
			if rep.eof && !rep.p.killed {
				running--
			}
		case <-wait.C:
			running = 0
		}
	}
	wait.Stop()
	lt.procs.release()
}

// warmable reports whether the trial can run on kept processes: not when
// a node is to show a forged identity. A kept node process keeps a program
// in any language only if it declared reuse, and starts it afresh
// otherwise (NODE-PROTOCOL.md, "A fresh init").
func (lt *liveTrial) warmable() bool {
	return len(lt.opt.Forge) == 0
}

// keepable reports whether the trial leaves its processes fit for the
// next: it ran to its end without a failure or an interruption, and every
// process it started is running, unpaused, as itself.
func (lt *liveTrial) keepable() bool {
	ps := lt.procs
	if lt.ctx.Err() != nil || len(lt.errs) > 0 || !lt.clock.started || lt.kept == nil || lt.srv.down() != nil ||
		!lt.warmable() || len(ps.all) != lt.n {
		return false
	}
	for pos, p := range ps.byPos {
		if p == nil || p.killed || !ps.alive[pos] || ps.paused[pos] || ps.refused[pos] || p.unproven != nil {
			return false
		}
	}
	return true
}

// resetAll ends the trial on every node with a reset (each answers with
// its stats, as to stop, and keeps running), within stopWait, and reports
// whether all of them did.
func (lt *liveTrial) resetAll() bool {
	for _, p := range lt.procs.byPos {
		lt.procs.write(p, live.Command{Type: "reset"})
	}
	wait := time.NewTimer(stopWait)
	defer wait.Stop()
	for waiting := lt.n; waiting > 0; {
		select {
		case rep := <-lt.procs.reports:
			lt.handle(rep)
			switch {
			case rep.eof:
				return false
			case rep.r.Type == "stats":
				waiting--
			}
		case <-wait.C:
			lt.logf("nodes did not answer their reset within %v: stopping them", stopWait)
			return false
		}
	}
	return len(lt.errs) == 0
}

// finish turns what the run reported into the result: the events still
// held emitted, the runtime's pings from the nodes' own counts, and the
// checks that the counts reconcile.
func (lt *liveTrial) finish() (*Result, error) {
	if lt.procs.ranks == nil || !lt.clock.started {
		err := lt.failure()
		if err == nil {
			err = errors.New("live: the trial did not start")
		}
		return nil, err
	}
	res, l, st := &lt.res, lt.log, lt.settle
	l.flush(time.Duration(math.MaxInt64))
	if l.late > 0 {
		lt.logf("%d events arrived after later ones were emitted: the trace has them out of time order", l.late)
	}
	if c := l.causal; c != nil && c.moved != (moves{}) {
		lt.logf("%d receives reordered after their sends and %d events after their process's earlier ones, by up to %v: "+
			"stamped on hosts' clocks estimated within %v, they preceded their causes", c.moved.recvs, c.moved.others,
			c.moved.most, l.rec.ClockError)
	}
	rec := l.rec
	for p := range lt.n {
		sent := l.maint[p]
		if st := res.Stats[p]; st != nil {
			sent = st.Sent
		}
		for _, k := range maintKinds {
			rec.CountSends(k, sent[k.String()], int64(nodes.Message{Kind: k}.EncodedSize()))
		}
	}
	res.Lost = newCounts()
	for k, s := range res.Sent {
		if lost := s - res.Dropped[k] - res.Received[k]; lost != 0 {
			res.Lost[k] = lost
			rec.CountLost(max(lost, 0))
		}
	}
	rec.Events, rec.Quiescent, rec.End = l.steps, st.quiescent, st.lastCore
	rec.Settled = st.settled
	rec.Alive = slices.Clone(lt.procs.alive)
	rec.Disputes = res.Disputes // handle's, as the nodes reported them
	res.Record = rec
	for _, st := range res.Stats {
		if st != nil {
			res.Refusals += st.Refused
			res.Record.AnonymousRefused += st.Anonymous
		}
	}
	lt.reconcile()
	out := *res // the trial's state can go; its result stays
	if err := lt.failure(); err != nil || st.overBudget == nil {
		return &out, err
	}
	return &out, st.overBudget
}

// growCounts makes room in the trial's counts for kinds registered since
// they were made (an external program's: live.ResolveExternal).
func (lt *liveTrial) growCounts() {
	res := &lt.res
	res.Sent.grow()
	res.Received.grow()
	res.Dropped.grow()
}

// reconcile checks the counts: in a run without faults every message
// written is delivered, and each node's own count of what it sent agrees
// with its step lines.
func (lt *liveTrial) reconcile() {
	res, st := &lt.res, lt.settle
	if !lt.faults.faulty && len(res.Crashes) == 0 {
		for k, d := range res.Dropped {
			if d != 0 {
				lt.fail("%d %s messages dropped: no link was up", d, nodes.Kind(k))
			}
		}
		if !st.quiescent && !lt.cfg.Algorithm.NeverRests() && st.atDeadline != "" && !st.stepFailed {
			lt.fail("not settled by the deadline: %s", st.atDeadline)
		}
		if st.quiescent {
			for k, lost := range res.Lost {
				if lost != 0 {
					lt.fail("%d %s messages written but never delivered (sent %d, dropped %d, received %d)",
						lost, nodes.Kind(k), res.Sent[k], res.Dropped[k], res.Received[k])
				}
			}
		}
	}
	for p, st := range res.Stats {
		if st == nil || lt.procs.byPos[p].inc > 0 {
			continue
		}
		// By name, as the node counts: an external program's kind may
		// share its name with a built-in one.
		steps := map[string]int64{}
		for k, c := range lt.log.nodeSent[p] {
			if c != 0 && !slices.Contains(maintKinds, nodes.Kind(k)) {
				steps[nodes.Kind(k).String()] += c
			}
		}
		for name, c := range st.Sent {
			if k, ok := nodes.KindByName(name); ok && slices.Contains(maintKinds, k) {
				continue
			}
			if got := steps[name]; got != c {
				lt.fail("node %d counted %d %s sent, its step lines %d", p, c, name, got)
			}
			delete(steps, name)
		}
		for name, got := range steps {
			lt.fail("node %d counted 0 %s sent, its step lines %d", p, name, got)
		}
	}
}
