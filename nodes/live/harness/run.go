package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/pow"
)

// liveTrial is the state of one live trial; only its run goroutine touches
// it, except for the channels. Its parts are kept by the files that own
// them: the processes (procs.go), the links (links.go), the faults
// (faults.go) and the events (record.go).
type liveTrial struct {
	r      *Runtime
	ctx    context.Context // the run's: Toxiproxy calls of faults made while it runs
	cfg    trial.Config
	n      int
	T      time.Duration // configured one-way latency: the record's unit
	tAlg   time.Duration // the unit the algorithms' parameters are read in: T plus the allowance
	det    trial.Detector
	serial int // the runtime's trials, counted from 1: named in the log
	dir    string
	ranks  []nodes.Rank // the minted identities' ranks, by position
	res    Result
	errs   []string

	procs *procs
	links links
	// epoch is the trial's among a kept cluster's processes
	// (live.Config.Epoch; warm.go): 0 on processes of its own.
	epoch uint64
	// over is closed at teardown: scheduled actions no longer wait.
	over   chan struct{}
	faults faults
	log    eventLog
	prog   *setupProgress

	// The run: its start, on the host's monotonic clock (live.Mono) and on
	// this process's, and every position's state.
	t0          int64
	start       time.Time
	started     bool
	alive       []bool
	paused      []bool
	gone        []bool // will not come back: crashed, refused, paused until the end
	refused     []bool
	restarting  map[int]bool
	lastLeader  nodes.Rank    // the latest decision, as reports arrive
	firstInit   time.Duration // the first initiation, as reports arrive; -1 before
	elected     int64         // election messages sent
	faulty      bool          // any fault beyond crashes at the start
	downAtStart []int         // positions crashed (or refused) before the run started

	// Settling. Kept up to date event by event, so that checking whether
	// the run has settled costs nothing: links (to a process that runs)
	// with messages written but not delivered, and running processes with
	// timers armed or commands unanswered (recount after changes to gone
	// or lossy).
	armed          []int // per position: timers armed
	expect         []int // per position: commands sent whose step has not come back
	unsettledLinks int
	busyProcs      int
	pending        int           // scheduled harness actions not yet done
	actions        chan func()   // scheduled actions, due
	timers         []*time.Timer // of the scheduled actions, stopped at teardown
	lastCore       time.Duration
	quiet          time.Duration // how long a heartbeat run must be quiet
	quiescent      bool
	// settle ends a quorum trial once its election is over for good
	// (trial.Settling), judged on decisions, the processes' latest
	// beliefs as their steps report them; nil: it runs to its deadline.
	settle     *trial.Settling
	decisions  trial.Decisions
	settled    bool               // the settling rule ended the trial
	atDeadline string             // what had not settled when the deadline passed
	budget     trial.Budget       // trial.Config.BudgetOrDefault
	overBudget *trial.BudgetError // set when the machines passed it (passedBudget)
	stopping   bool               // teardown began: the run's counts are final
}

func newLiveTrial(r *Runtime, cfg trial.Config, fs faults, serial int) *liveTrial {
	n := cfg.Ranks.Len()
	lt := &liveTrial{
		r: r, ctx: context.Background(), cfg: cfg, faults: fs, n: n, T: cfg.T(), serial: serial,
		procs:      newProcs(),
		links:      newLinks(n),
		actions:    make(chan func(), 64),
		over:       make(chan struct{}),
		restarting: map[int]bool{},
		firstInit:  -1,
		faulty:     fs.tl.Needs().Links,
	}
	lt.tAlg = trial.LiveUnit(lt.T, r.opt.Allowance)
	lt.det = cfg.DetectorIn(lt.tAlg)
	if lt.det.Kind == "heartbeat" {
		lt.quiet = lt.det.Tau + 2*lt.det.P + 4*lt.T
	}
	lt.budget = cfg.BudgetOrDefault()
	settle, err := trial.NewSettling(&cfg, nodes.Config{Variant: cfg.VariantName(), Params: cfg.Params, N: n, T: lt.tAlg, D: cfg.BoundIn(lt.tAlg)})
	if err != nil {
		lt.fail("%v", err)
	}
	if settle != nil {
		lt.settle, lt.decisions = settle, trial.NewDecisions(n)
	}
	lt.prog = newSetupProgress(r.opt.Progress, lt)
	lt.res.Info.Toxiproxy = r.srv.clients[0].URL()
	return lt
}

func (lt *liveTrial) logf(format string, args ...any) {
	if lt.r.opt.Log != nil {
		fmt.Fprintf(lt.r.opt.Log, "live: trial %d: "+format+"\n", append([]any{lt.serial}, args...)...)
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

func (lt *liveTrial) now() time.Duration {
	if !lt.started {
		return 0
	}
	return time.Since(lt.start) // Go's monotonic clock: CLOCK_MONOTONIC, like live.Mono, read cheaply
}

// run executes the trial and always releases its processes, proxies and
// files.
func (lt *liveTrial) run(ctx context.Context) (res *Result, err error) {
	lt.ctx = ctx
	defer func() {
		if p := recover(); p != nil {
			lt.fail("panic: %v", p)
		}
		lt.teardown()
		res, err = lt.finish()
	}()
	if serr := lt.setup(ctx); serr != nil {
		lt.fail("%v", serr)
		return
	}
	lt.execute(ctx)
	return
}

// --- setup ---------------------------------------------------------------------

func (lt *liveTrial) setupTimeout() time.Duration {
	if d := lt.r.opt.SetupTimeout; d > 0 {
		return d
	}
	return 30*time.Second + time.Duration(lt.n)*time.Second
}

func (lt *liveTrial) setup(ctx context.Context) error {
	n := lt.n
	ctx, cancel := context.WithTimeout(ctx, lt.setupTimeout())
	defer cancel()
	began := time.Now()

	lt.prog.stage(Starting, 0, n)
	if lt.takeWarm() {
		lt.prog.progress(n)
	} else if err := lt.startAll(ctx); err != nil {
		return err
	}
	lt.res.Info.Dir = lt.dir
	if err := lt.assign(); err != nil {
		return err
	}
	return lt.continueSetup(ctx, began)
}

// startAll starts a node process for every spawn index, with a new
// directory for their identities, and waits for each one's hello.
func (lt *liveTrial) startAll(ctx context.Context) error {
	n := lt.n
	dir, err := os.MkdirTemp("", "electbench-live-")
	if err != nil {
		return err
	}
	lt.dir = dir
	lt.res.Info.Dir = dir
	if err := lt.spawnAll(); err != nil {
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
			if err := lt.hello(rep.p, &rep.r); err != nil {
				return err
			}
			hellos++
			lt.prog.progress(hellos)
		}
	}
	return nil
}

// continueSetup is the set-up of the nodes once they are identified.
func (lt *liveTrial) continueSetup(ctx context.Context, began time.Time) error {
	n := lt.n
	lt.alive, lt.paused, lt.gone, lt.refused = make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	for i := range lt.alive {
		lt.alive[i] = true
	}
	for pos, p := range lt.procs.byPos {
		lt.refused[pos] = p.unproven != nil
	}
	lt.armed = make([]int, n)
	lt.expect = make([]int, n)
	if s, ok := lt.cfg.Events.(trial.SetupSink); ok {
		s.Setup(trial.Setup{Ranks: nodes.RanksOf(lt.ranks), Unit: lt.tAlg})
	}
	lt.log = newEventLog(n, &lt.cfg, lt.T, lt.det)
	lt.log.rec.Bound = lt.cfg.BoundIn(lt.tAlg)
	lt.res.Sent, lt.res.Received, lt.res.Dropped = newCounts(), newCounts(), newCounts()
	lt.res.DeliveredFrom = make([]int64, n)
	lt.res.Stats = make([]*live.Stats, n)
	lt.recount()

	// Faults from the start, before anyone boots: the processes crashed
	// then never run (they get no links); link faults wait for the links.
	if lt.faults.tl != nil {
		lt.faults.tl.Begin(injector{lt})
	}
	identified := time.Now()
	if err := lt.makeLinks(ctx); err != nil {
		return err
	}
	proxied := time.Now()
	// Each node links once configured; wait until every live node has
	// every outgoing link up or refused.
	lt.prog.stage(Linking, 0, len(lt.links.list))
	for p := range n {
		if lt.alive[p] {
			lt.configure(lt.procs.byPos[p])
		}
	}
	// Links come up one "link" line each; a kept process's links, up
	// already, come all at once with its "linked".
	linked, counted := 0, make(map[*proc]int, n)
	for !lt.allLinked() {
		rep, err := lt.procs.next(ctx)
		if err != nil {
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
	// A node whose identity was refused takes no part: it is stopped and
	// treated as crashed at the start (its peers' detectors suspect it as
	// they would such a crash).
	for p := range n {
		if lt.refused[p] && lt.alive[p] {
			lt.res.Refused = append(lt.res.Refused, p)
			lt.crash(p, false)
		}
	}
	for _, p := range lt.procs.all {
		lt.res.Info.PIDs = append(lt.res.Info.PIDs, p.pid)
		lt.res.Info.NodeAddrs = append(lt.res.Info.NodeAddrs, p.addr)
	}
	// Where set-up time goes, in the log: processes started and
	// identified, proxies made or found and their latencies set, links up.
	on := ""
	if k := len(lt.r.kept.servers); k > 1 {
		on = fmt.Sprintf(" on %d Toxiproxy servers", k)
	}
	up := "up"
	if lt.epoch > 0 {
		up = "kept"
	}
	lt.logf("%d processes %s in %v, %d proxies ready%s in %v, linked in %v", n, up, identified.Sub(began).Round(time.Millisecond),
		len(lt.links.list), on, proxied.Sub(identified).Round(time.Millisecond), time.Since(proxied).Round(time.Millisecond))
	lt.res.Info.Servers = lt.r.srv.urls()[:len(lt.r.kept.servers)]
	lt.res.Info.ServerPIDs = lt.r.srv.pids()[:len(lt.r.kept.servers)-1]
	if lt.r.opt.Observe != nil {
		lt.r.opt.Observe(lt.res.Info)
	}
	lt.prog.stage(Running, 0, 0)
	return nil
}

// hello takes a node's hello: its address and identity, once its registry
// is found to number kinds and timers as the harness's does.
func (lt *liveTrial) hello(p *proc, r *live.Report) error {
	if err := live.CheckRegistry(r.Kinds, r.Timers); err != nil {
		return fmt.Errorf("node %d (%s) refused: %w", p.idx, strings.Join(lt.r.opt.Node, " "), err)
	}
	id, err := pow.Decode([]byte(r.Identity))
	if err != nil {
		return fmt.Errorf("node %d: its identity does not decode: %w", p.idx, err)
	}
	p.ident, p.addr = id, r.Addr
	// The harness checks every reported identity itself (proof of work
	// and key/id binding) under the cluster's puzzle rather than take the
	// node's word for it; the handshake proves possession of the key.
	p.unproven = nil
	if err := pow.PolicyFor(lt.puzzle()).Verify(id); err != nil {
		p.unproven = err
		lt.logf("node %d: its identity fails the cluster's puzzle: %v", p.idx, err)
	}
	return nil
}

// puzzle is the cluster's puzzle, the one every node mints with and
// requires of its peers.
func (lt *liveTrial) puzzle() pow.Params { return live.IdentityParams(lt.bits()) }

// assign hands identities out to positions by rank order: the minted
// identities take the places of cfg.Ranks, so relative ranks are the
// arrangement's.
func (lt *liveTrial) assign() error {
	n := lt.n
	byRank := slices.Clone(lt.procs.all)
	slices.SortFunc(byRank, func(a, b *proc) int { return a.ident.ID.Compare(b.ident.ID) })
	for i := 1; i < n; i++ {
		if byRank[i].ident.ID == byRank[i-1].ident.ID {
			return fmt.Errorf("nodes %d and %d show the same identity %s", byRank[i-1].idx, byRank[i].idx, byRank[i].ident.ID)
		}
	}
	positions := make([]int, n)
	for i := range positions {
		positions[i] = i
	}
	slices.SortFunc(positions, lt.cfg.Ranks.Cmp)
	lt.procs.byPos = make([]*proc, n)
	lt.ranks = make([]nodes.Rank, n)
	for k, pos := range positions {
		p := byRank[k]
		p.pos = pos
		lt.procs.byPos[pos] = p
		lt.ranks[pos] = p.ident.Rank()
	}
	lt.res.Ranks = lt.ranks
	return nil
}

// configure sends a node its run.
func (lt *liveTrial) configure(p *proc) {
	cfg := &live.Config{
		Algorithm: lt.cfg.Algorithm.Name, Variant: lt.cfg.VariantName(), Params: lt.cfg.Params,
		T: lt.tAlg, D: lt.cfg.BoundIn(lt.tAlg), Seed: lt.cfg.Seed, Epoch: lt.epoch, Self: p.pos, SelfLatency: lt.T,
		MinBits: lt.bits(), Puzzle: new(lt.puzzle()), Links: lt.links.outgoing(p.pos),
		External: lt.cfg.Algorithm.External,
		// Step lines carry the messages' ranks only when the sink reads
		// them (a trace does; a quorum checker reads kinds and counters).
		Trace: lt.log.trace,
	}
	for _, r := range lt.ranks {
		cfg.Ranks = append(cfg.Ranks, r.String())
	}
	if lt.det.Kind == "heartbeat" {
		cfg.Detector = live.Detector{Kind: "heartbeat", P: lt.det.P, Tau: lt.det.Tau}
	}
	lt.send(p, live.Command{Type: "configure", Config: cfg})
}

func (lt *liveTrial) allLinked() bool {
	for pos, p := range lt.procs.byPos {
		if lt.alive[pos] && !p.linked {
			return false
		}
	}
	return true
}

// --- the run -------------------------------------------------------------------

// execute starts the run at t0 and drives it until it settles, its deadline
// passes or ctx ends.
func (lt *liveTrial) execute(ctx context.Context) {
	// Link faults from the start are in place before anyone starts.
	lt.applyDeferred(ctx)
	lt.t0, lt.start = live.Mono(), time.Now()
	lt.started = true
	for p := range lt.n {
		if lt.alive[p] {
			lt.send(lt.procs.byPos[p], live.Command{Type: "start", T0: lt.t0})
		}
	}
	// Crashes at the start: exactly the initiators (everyone, for
	// algorithms that all start at once) suspect them at time 0, before
	// they initiate; everyone else after D (perfect detector).
	for _, c := range lt.downAtStart {
		lt.detect(c, true)
	}
	for _, p := range lt.cfg.Initiators {
		if lt.alive[p] {
			lt.send(lt.procs.byPos[p], live.Command{Type: "initiate"})
		}
	}
	for _, e := range lt.faults.early {
		lt.after(e.at, e.f)
	}
	lt.faults.early = nil
	if lt.faults.tl != nil {
		lt.faults.tl.Arm(lt.cfg.Algorithm.StartsAll)
	}
	stop := time.NewTimer(lt.cfg.DeadlineOrDefault())
	defer stop.Stop()
	recheck := time.NewTimer(time.Hour)
	defer recheck.Stop()
	for {
		lt.runDue()
		if lt.atRest() {
			lt.quiescent = true
			return
		}
		if lt.settle != nil {
			if now := lt.now(); lt.settle.Due(now) && lt.steady(now) {
				lt.settled = true
				return
			}
		}
		switch {
		case lt.quiet > 0 || lt.links.anyLossy:
			recheck.Reset(max(lt.lastCore+lt.quietPeriod()-lt.now(), time.Millisecond))
		case lt.settle != nil:
			recheck.Reset(max(lt.settle.Next()-lt.now(), time.Millisecond))
		}
		select {
		case rep := <-lt.procs.reports:
			lt.handle(rep)
			if lt.passedBudget() {
				return
			}
		case f := <-lt.actions:
			lt.pending--
			lt.electionEvent() // a fault starting or healing, a detection
			f()
		case <-recheck.C:
		case <-stop.C:
			lt.atDeadline = lt.unsettled()
			return
		case <-ctx.Done():
			lt.fail("interrupted: %v", ctx.Err())
			return
		}
	}
}

// after runs f on the trial's goroutine d after t0, counting it as pending
// until then.
func (lt *liveTrial) after(d time.Duration, f func()) {
	lt.pending++
	lt.timers = append(lt.timers, time.AfterFunc(max(d-lt.now(), 0), func() {
		select {
		case lt.actions <- f:
		case <-lt.over:
		}
	}))
}

// quietPeriod is how long nothing may happen before a run whose messages
// may be lost, or whose detector could still notice something, counts as
// settled.
func (lt *liveTrial) quietPeriod() time.Duration {
	q := lt.quiet
	if lt.links.anyLossy {
		q = max(q, 4*lt.T+20*time.Millisecond)
	}
	return q
}

// steady reports, when the settling rule is due, whether a quorum trial
// has settled (trial.Settling): nothing of a fault to come or in force, no
// harness action (a detection) pending, no process restarting, and the
// live processes agreeing on a live leader.
func (lt *liveTrial) steady(now time.Duration) bool {
	quiet := lt.faults.tl.Settled() && lt.pending == 0 && len(lt.restarting) == 0
	return lt.settle.Settled(now, quiet, &lt.decisions, lt.alive, nodes.RanksOf(lt.ranks))
}

// electionEvent tells the settling rule, if any, of an election event now.
func (lt *liveTrial) electionEvent() {
	if lt.settle != nil {
		lt.settle.Event(lt.now())
	}
}

// atRest reports whether the run has come to rest: no harness action
// pending, no timer armed at a running process, every message written on a
// reliable link to a process that will run again delivered, and, for runs
// that may lose messages or run heartbeats, a quiet period behind it.
func (lt *liveTrial) atRest() bool {
	if lt.pending > 0 || len(lt.restarting) > 0 || lt.busyProcs > 0 || lt.unsettledLinks > 0 {
		return false
	}
	q := lt.quietPeriod()
	return q == 0 || lt.now()-lt.lastCore >= q
}

// handle processes one line (or the end) of a node.
func (lt *liveTrial) handle(rep nodeReport) {
	p := rep.p
	current := p.pos >= 0 && lt.procs.byPos[p.pos] == p
	if rep.eof {
		lt.procEnded(p)
		if !p.killed && !p.stopped && current && lt.alive[p.pos] {
			lt.fail("node %d exited unexpectedly: %s", p.pos, p.tail.String())
			lt.crash(p.pos, false)
		}
		return
	}
	r := &rep.r
	switch r.Type {
	case "linked":
		p.linked = true
		if lt.restarting[p.pos] && current {
			delete(lt.restarting, p.pos)
			lt.gone[p.pos], lt.alive[p.pos] = false, true
			lt.recount()
			// A fresh machine knows no leader: it must decide again.
			lt.log.proc(lt.now(), trial.EvRestart, p.pos)
			if lt.settle != nil {
				lt.decisions.Forget(p.pos)
				lt.electionEvent()
			}
			lt.send(p, live.Command{Type: "start", T0: lt.t0, Restart: true})
		}
	case "refused":
		// A refusal of the reporter by its peer names nobody new: the peer
		// reports its own side of it.
		if !r.ByPeer && r.Peer >= 0 && r.Peer < lt.n {
			lt.refused[r.Peer] = true
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
		lt.synced(p, time.Duration(r.T))
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
	case "hello":
		if lt.restarting[p.pos] && current {
			if err := lt.hello(p, r); err != nil {
				lt.fail("%v", err)
				return
			}
			lt.rewire(p)
		}
	}
}

// step accounts for one event a machine handled: its events go to the log
// (record.go), and what drives the run — settling, the faults' triggers —
// is updated as it comes.
func (lt *liveTrial) step(p *proc, r *live.Report) {
	pos := p.pos
	lt.log.countNodeSent(pos, r)
	if lt.stopping {
		// Once teardown begins the run is over: what nodes still do while
		// their peers stop (a perpetual algorithm's heartbeats to a peer
		// already gone) is not part of it.
		return
	}
	n := lt.n
	at := time.Duration(r.T)
	lt.lastCore = max(lt.lastCore, lt.now())
	lt.busy(pos, func() {
		lt.armed[pos] = r.Armed
		if r.Ev == "start" || r.Ev == "initiate" || r.Ev == "suspect" && lt.det.Kind != "heartbeat" {
			lt.expect[pos]--
		}
	})
	leaders := lt.decode(p, at, r)
	initiated := lt.firstInit >= 0
	switch r.Ev {
	case "start":
		if lt.cfg.Algorithm.StartsAll && (lt.firstInit < 0 || at < lt.firstInit) {
			lt.firstInit = at
		}
	case "initiate":
		if lt.firstInit < 0 || at < lt.firstInit {
			lt.firstInit = at
		}
	case "recv":
		if r.From >= 0 && r.From < n {
			k := r.From*n + pos
			lt.count(k, func() { lt.links.recv[k]++ })
			lt.res.DeliveredFrom[r.From]++
		}
	}
	tl := lt.faults.tl
	if !initiated && lt.firstInit >= 0 && tl != nil {
		tl.Initiated()
	}
	for i := range r.Sent {
		m := &r.Sent[i]
		if !m.Dropped && m.To >= 0 && m.To < n {
			k := pos*n + m.To
			lt.count(k, func() { lt.links.sent[k]++ })
		}
		if m.Kind.IsElection() {
			lt.elected++
			if tl.WantsSends() {
				tl.Sent(lt.elected)
			}
		}
	}
	for _, leader := range leaders {
		lt.lastLeader = leader
		if tl != nil {
			tl.Decided()
		}
	}
	if lt.settle != nil {
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
		lt.decisions.Decided(pos, &leader, now)
	}
	if event {
		lt.settle.Event(now)
	}
}

// target resolves trial.CurrentLeader: whom the latest decision named, or the
// highest live process if nobody has decided.
func (lt *liveTrial) target(pos int) int {
	if pos != trial.CurrentLeader {
		return pos
	}
	if !lt.lastLeader.IsZero() {
		if p := slices.Index(lt.ranks, lt.lastLeader); p >= 0 {
			return p
		}
	}
	best := -1
	for p := range lt.n {
		if lt.alive[p] && (best < 0 || lt.ranks[best].Less(lt.ranks[p])) {
			best = p
		}
	}
	return max(best, 0)
}

// --- teardown ------------------------------------------------------------------

// teardown releases everything: processes (stopped politely if they run,
// killed in any case), proxies, files. It runs on every exit path.
func (lt *liveTrial) teardown() {
	lt.stopping = true
	defer close(lt.over)
	defer func() {
		for _, t := range lt.timers {
			t.Stop()
		}
	}()
	if lt.keepable() && lt.resetAll() {
		lt.r.kept.warm = &warm{procs: lt.procs, dir: lt.dir, epoch: lt.epoch}
		return
	}
	lt.stopAll()
	if lt.dir != "" {
		os.RemoveAll(lt.dir) // best effort: it holds only the identities the nodes minted
	}
}

// --- settling ------------------------------------------------------------------

// procBusy reports whether running process p has work pending.
func (lt *liveTrial) procBusy(p int) bool {
	return !lt.gone[p] && (lt.armed[p] > 0 || lt.expect[p] > 0)
}

// busy applies change to process p's counts, keeping busyProcs right.
func (lt *liveTrial) busy(p int, change func()) {
	if lt.procBusy(p) {
		lt.busyProcs--
	}
	change()
	if lt.procBusy(p) {
		lt.busyProcs++
	}
}

// recount recomputes the settled bookkeeping after gone or lossy changed.
func (lt *liveTrial) recount() {
	lt.unsettledLinks, lt.busyProcs, lt.links.anyLossy = 0, 0, false
	for k := range lt.links.sent {
		if lt.linkBusy(k) {
			lt.unsettledLinks++
		}
		lt.links.anyLossy = lt.links.anyLossy || lt.links.lossy[k]
	}
	for p := range lt.n {
		if lt.procBusy(p) {
			lt.busyProcs++
		}
	}
}

// unsettled says what kept a run from settling: messages in flight, timers
// armed, commands unanswered.
func (lt *liveTrial) unsettled() string {
	var what []string
	n := lt.n
	for i := range n {
		for j := range n {
			if k := i*n + j; !lt.gone[j] && lt.links.sent[k] != lt.links.recv[k] {
				what = append(what, fmt.Sprintf("%d→%d: %d written, %d delivered", i, j, lt.links.sent[k], lt.links.recv[k]))
			}
		}
	}
	for p := range n {
		if !lt.gone[p] && (lt.armed[p] > 0 || lt.expect[p] > 0) {
			what = append(what, fmt.Sprintf("process %d: %d timers armed, %d commands unanswered", p, lt.armed[p], lt.expect[p]))
		}
	}
	for p := range n {
		if lt.paused[p] && lt.alive[p] {
			what = append(what, fmt.Sprintf("process %d paused", p))
		}
	}
	if lt.pending > 0 {
		what = append(what, fmt.Sprintf("%d harness actions pending", lt.pending))
	}
	if len(what) == 0 {
		return "quiet, but not for long enough"
	}
	return strings.Join(what, "; ")
}
