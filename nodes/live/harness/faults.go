package harness

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/nodes/trial/timeline"
)

// This file is how a live trial's faults act: the one fault engine
// (nodes/trial/timeline) decides when each of the trial's faults
// (trial.Config.Faults, crashes among them) starts and heals
// and whom it hits, as in the simulator, and acts through injector, the
// harness's trial.Injector: SIGKILL, SIGSTOP and SIGCONT, respawning, the
// perfect detector's suspect commands, disabled proxies for cuts, and
// Toxiproxy's toxics for the link effects it has one for.

// faults are a trial's fault timeline and what the injector keeps: the
// effects in force, the latest leader named (the faults' target), and
// whether the run saw a fault. They act on the processes and the links
// (procs.go, links.go), log to the event log (record.go), and ask the
// trial for only what needs its bookkeeping (faultHost).
type faults struct {
	tl   *timeline.Timeline
	rand *rand.Rand
	// effects are the link effects in force (or waiting for the links to
	// exist, at the start), by the fault's ID.
	effects map[int]*linkEffect
	// deferred are link effects begun before the links existed: applied
	// once they do, before the run starts.
	deferred []*linkEffect
	// slowed are the slow faults in force, by process and fault: a
	// process restarted meanwhile is told them again, as its loss.
	slowed map[[2]int]time.Duration

	cfg   *trial.Config
	det   trial.Detector
	ctx   context.Context // the run's: Toxiproxy calls of faults made while it runs
	host  faultHost
	procs *procs
	links *links
	log   *eventLog
	clock *schedule

	lastLeader  nodes.Rank    // the latest decision, as reports arrive
	firstInit   time.Duration // the first initiation, as reports arrive; -1 before
	elected     int64         // election messages sent
	faulty      bool          // any fault beyond crashes at the start
	downAtStart []int         // positions crashed (or refused) before the run started
}

// attach gives the faults the trial they act in: its configuration and
// detector, its parts, and the host for what needs its bookkeeping. The
// event log comes once the trial has one (setup).
func (f *faults) attach(cfg *trial.Config, det trial.Detector, host faultHost, ps *procs, ls *links, clock *schedule) {
	f.cfg, f.det, f.host, f.procs, f.links, f.clock, f.firstInit = cfg, det, host, ps, ls, clock, -1
}

// faultHost is what the faults ask of the trial they act in: a command
// sent with the trial's bookkeeping (the step it expects back), a recount
// of its settling after a position's or a link's state changed, and a
// failure noted.
type faultHost interface {
	command(p *proc, c live.Command)
	recount()
	fail(format string, args ...any)
}

// linkEffect is one link fault in force on the links it affects: a cut
// (disabled proxies), a toxic on each link's proxy, or loss in the
// sending nodes' link layer (Toxiproxy has no loss toxic).
type linkEffect struct {
	l     trial.LinkEffect
	what  string
	links []link
	cut   bool
	toxic toxic
	loss  *trial.Loss
	// hostCut is a cut between hosts in the kernel (trial.HostCut): the
	// pairs of hosts (from, to) the links cross, cut while it holds.
	hostCut bool
	hosts   [][2]int
}

// newFaults prepares the trial's fault timeline, refusing a fault the
// live runtime cannot apply before anything starts.
func newFaults(cfg *trial.Config) (*faults, error) {
	tl, err := timeline.New(cfg.Faults)
	if err != nil {
		return nil, err
	}
	if err := tl.Check(injector{}); err != nil {
		return nil, err
	}
	return &faults{tl: tl, effects: map[int]*linkEffect{}, ctx: context.Background(), faulty: tl.Needs().Links}, nil
}

// injector is the live trial as the fault timeline sees and acts on it:
// its trial.View and trial.Injector, the link-shaping interfaces
// Toxiproxy has a toxic for, loss (told to the sending nodes' link layer)
// and slow processes (told to their event loops). Duplication, reordering
// and per-link latency models have none, so the timeline refuses them
// before a live run (TCP links never reorder a message).
type injector struct{ f *faults }

var (
	_ trial.Injector   = injector{}
	_ trial.Delayer    = injector{}
	_ trial.Throttler  = injector{}
	_ trial.Slicer     = injector{}
	_ trial.Limiter    = injector{}
	_ trial.Blackholer = injector{}
	_ trial.Resetter   = injector{}
	_ trial.SlowCloser = injector{}
	_ trial.Loser      = injector{}
	_ trial.Slower     = injector{}
	_ trial.HostCutter = injector{}
	_ trial.Hosted     = injector{}
)

func (in injector) N() int                { return len(in.f.procs.byPos) }
func (in injector) Rank(p int) nodes.Rank { return in.f.procs.ranks[p] }
func (in injector) Alive(p int) bool      { return in.f.procs.alive[p] }
func (in injector) Now() time.Duration    { return in.f.clock.now() }

// Leader is the position the latest decision named, or -1.
func (in injector) Leader() int {
	if in.f.lastLeader.IsZero() {
		return -1
	}
	return slices.Index(in.f.procs.ranks, in.f.lastLeader)
}

// Initiators are the positions told to initiate; everyone for algorithms
// in which everyone starts.
func (in injector) Initiators() []int {
	if in.f.cfg.Algorithm.StartsAll {
		return trial.AllPositions(len(in.f.procs.byPos))
	}
	return in.f.cfg.Initiators
}

// Rand is the trial's fault stream, the simulator's.
func (in injector) Rand() *rand.Rand {
	fs := in.f
	if fs.rand == nil {
		fs.rand = trial.FaultRand(fs.cfg.Seed)
	}
	return fs.rand
}

// At runs f at time at on the trial's goroutine: at once after the
// handler running now if at has come, else when it comes. Before the
// run's clock starts (faults in force from the start), it waits for it.
func (in injector) At(at time.Duration, f func()) { in.f.clock.at(at, f) }

// Crash SIGKILLs p. The perfect detector tells the others, unless the
// fault is undetected: at once for the initiators of a crash at the
// start, D after it otherwise.
func (in injector) Crash(p int, _, undetected bool) { in.f.crash(p, undetected) }

// Restart respawns p with its identity, if it is down.
func (in injector) Restart(p int) {
	f, ps := in.f, in.f.procs
	if ps.alive[p] || ps.restarting[p] || ps.refused[p] {
		return
	}
	if !slices.ContainsFunc(f.links.list, func(l link) bool { return l[0] == p }) {
		f.host.fail("cannot restart node %d: it was down from the start and has no links", p)
		return
	}
	ps.restarting[p] = true
	if err := ps.respawn(p); err != nil {
		f.host.fail("restarting node %d: %v", p, err)
	}
}

// Pause stops p's process (SIGSTOP). While paused it counts as gone for
// settling, as the simulator holds its events: a run with nothing else
// pending is over.
func (in injector) Pause(p int) {
	f, ps := in.f, in.f.procs
	if !ps.alive[p] || ps.paused[p] {
		return
	}
	if err := ps.pause(p); err != nil {
		f.host.fail("pausing node %d: %v", p, err)
		return
	}
	f.host.recount()
	f.log.proc(f.clock.now(), trial.EvPause, p)
}

// Resume continues a paused process (SIGCONT).
func (in injector) Resume(p int) {
	f, ps := in.f, in.f.procs
	if !ps.paused[p] {
		return
	}
	ps.resume(p)
	f.host.recount()
	f.log.proc(f.clock.now(), trial.EvResume, p)
}

// Suspect makes observer's detector suspect q through the control channel.
func (in injector) Suspect(observer, q int) {
	ps := in.f.procs
	if ps.alive[observer] {
		in.f.host.command(ps.byPos[observer], live.Command{Type: "suspect", Peer: q})
	}
}

// Note records a start or heal in the schedule; traced says it is a
// scenario's fault, which the trace shows (a --crash crash is not).
func (in injector) Note(what string, traced bool) { in.f.log.fault(in.f.clock.now(), what, traced) }

// Hosts is how many hosts the nodes run on (--netns, agents), 0 on this
// host's loopback.
func (in injector) Hosts() int {
	if hs, ok := in.f.procs.hosts.placement.(hosted); ok {
		return hs.hostCount()
	}
	return 0
}

// Host is position p's host, or -1 without hosts.
func (in injector) Host(p int) int {
	ps := in.f.procs
	hs, ok := ps.hosts.placement.(hosted)
	if !ok || ps.byPos[p] == nil {
		return -1
	}
	return hs.hostOf(ps.byPos[p].idx, ps.hosts.n)
}

// HostCut drops, in the kernel of the receiving hosts, every packet
// between the hosts the links cross, until Heal.
func (in injector) HostCut(l trial.LinkEffect) {
	in.f.begin(l, &linkEffect{what: "host cut", hostCut: true})
}

// Cut disables the proxies of the links, so that every connection fails
// and nothing is carried until Heal.
func (in injector) Cut(l trial.LinkEffect) { in.f.begin(l, &linkEffect{what: "cut", cut: true}) }

func (in injector) Delay(l trial.LinkEffect, p trial.Delay) {
	in.toxic(l, "latency", map[string]int64{"latency": p.Latency.Milliseconds(), "jitter": p.Jitter.Milliseconds()})
}

func (in injector) Throttle(l trial.LinkEffect, p trial.Bandwidth) {
	in.toxic(l, "bandwidth", map[string]int64{"rate": p.Rate / 1000}) // KB/s
}

func (in injector) Slice(l trial.LinkEffect, p trial.Slice) {
	in.toxic(l, "slicer", map[string]int64{"average_size": p.Size, "size_variation": p.Variation, "delay": p.Delay.Microseconds()})
}

func (in injector) Limit(l trial.LinkEffect, p trial.DataLimit) {
	in.toxic(l, "limit_data", map[string]int64{"bytes": p.Bytes})
}

func (in injector) Blackhole(l trial.LinkEffect, p trial.Blackhole) {
	in.toxic(l, "timeout", map[string]int64{"timeout": p.Timeout.Milliseconds()})
}

func (in injector) Reset(l trial.LinkEffect, p trial.Reset) {
	in.toxic(l, "reset_peer", map[string]int64{"timeout": p.Timeout.Milliseconds()})
}

func (in injector) SlowClose(l trial.LinkEffect, p trial.SlowClose) {
	in.toxic(l, "slow_close", map[string]int64{"delay": p.Delay.Milliseconds()})
}

// Lose has the sending node of each affected link lose what it sends on
// it with probability p.P, each sender drawing from its own stream
// (trial.LossSeed): Toxiproxy has no loss toxic.
func (in injector) Lose(l trial.LinkEffect, p trial.Loss) {
	in.f.begin(l, &linkEffect{what: "loss", loss: &p})
}

// Slow has p's node hold each step of its machine for service (its event
// loop, not SIGSTOP: it keeps answering its peers' pings).
func (in injector) Slow(p, id int, service time.Duration) {
	f := in.f
	if f.slowed == nil {
		f.slowed = map[[2]int]time.Duration{}
	}
	f.slowed[[2]int{p, id}] = service
	if ps := f.procs; ps.alive[p] {
		ps.write(ps.byPos[p], live.Command{Type: "slow", Fault: id, Service: service})
	}
}

// Fast ends slow fault id on p.
func (in injector) Fast(p, id int) {
	delete(in.f.slowed, [2]int{p, id})
	if ps := in.f.procs; ps.alive[p] {
		ps.write(ps.byPos[p], live.Command{Type: "heal", Fault: id})
	}
}

// retell tells restarted process p's node the loss and slow faults in
// force on it, which its old process held: as in the simulator, a
// restart heals neither its links nor its slowness.
func (f *faults) retell(p int) {
	ps := f.procs
	for _, id := range slices.Sorted(maps.Keys(f.effects)) {
		e := f.effects[id]
		var to []int
		for _, k := range e.links {
			if k[0] == p {
				to = append(to, k[1])
			}
		}
		if e.loss != nil && to != nil {
			ps.write(ps.byPos[p], live.Command{Type: "lose", Fault: id, Peers: to, P: e.loss.P, Seed: trial.LossSeed(f.cfg.Seed, id, p)})
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(f.slowed), func(a, b [2]int) int { return a[1] - b[1] }) {
		if k[0] == p {
			ps.write(ps.byPos[p], live.Command{Type: "slow", Fault: k[1], Service: f.slowed[k]})
		}
	}
}

// toxic puts a toxic of Toxiproxy's type typ on the affected links.
func (in injector) toxic(l trial.LinkEffect, typ string, attrs map[string]int64) {
	in.f.begin(l, &linkEffect{what: typ, toxic: toxic{name: "chaos-" + strconv.Itoa(l.ID) + "-" + typ, typ: typ, attrs: attrs}})
}

// lossyToxics lose what is written to a link while they hold.
var lossyToxics = map[string]bool{"timeout": true, "reset_peer": true, "limit_data": true}

// begin puts link effect e in force; before the links exist (a fault
// from the start) it waits for them.
func (f *faults) begin(l trial.LinkEffect, e *linkEffect) {
	e.l = l
	f.effects[l.ID] = e
	if f.links.list == nil {
		f.deferred = append(f.deferred, e)
		return
	}
	f.apply(f.ctx, e)
}

// applyDeferred puts the effects begun before the links existed in force.
func (f *faults) applyDeferred(ctx context.Context) {
	for _, e := range f.deferred {
		f.apply(ctx, e)
	}
	f.deferred = nil
}

// apply makes Toxiproxy carry out e on the links of the trial it
// affects, chosen by its toxicity exactly as the simulator chooses them.
func (f *faults) apply(ctx context.Context, e *linkEffect) {
	for _, k := range f.links.list {
		if e.l.Affects(f.cfg.Seed, k[0], k[1]) {
			e.links = append(e.links, k)
		}
	}
	if e.cut || e.hostCut || e.loss != nil || lossyToxics[e.toxic.typ] {
		f.links.markLossy(e.links)
		f.host.recount()
	}
	if e.hostCut {
		f.cutHosts(e)
		return
	}
	if e.loss != nil {
		f.tellSenders(e, func(from int, to []int) live.Command {
			return live.Command{Type: "lose", Fault: e.l.ID, Peers: to, P: e.loss.P, Seed: trial.LossSeed(f.cfg.Seed, e.l.ID, from)}
		})
		return
	}
	if e.cut {
		f.links.cut(ctx, e.what, e.links)
		return
	}
	f.links.addToxic(ctx, e.toxic, e.links)
}

// Heal ends link effect id: the proxies are enabled again (once no other
// cut holds them) or the toxic is removed.
func (in injector) Heal(id int) {
	f := in.f
	e := f.effects[id]
	if e == nil {
		return
	}
	delete(f.effects, id)
	switch {
	case e.loss != nil:
		f.tellSenders(e, func(int, []int) live.Command { return live.Command{Type: "heal", Fault: id} })
	case e.cut:
		f.redial(f.links.uncut(f.ctx, "heal "+e.what, e.links))
	case e.hostCut:
		f.healHosts(e)
	default:
		f.links.removeToxic(f.ctx, e.toxic, e.links)
	}
	f.log.res.Lifted = append(f.log.res.Lifted, Lift{ID: id, At: f.clock.now()})
}

// cutHosts cuts the pairs of hosts e's links cross, from each link's
// sender's host to its receiver's: links within one host are untouched.
func (f *faults) cutHosts(e *linkEffect) {
	ps := f.procs
	hc, ok := ps.hosts.placement.(hostCutter)
	if !ok {
		f.host.fail("%s: the nodes run on no hosts (--netns) to cut between", e.what)
		return
	}
	in := injector{f}
	seen := map[[2]int]bool{}
	for _, k := range e.links {
		pair := [2]int{in.Host(k[0]), in.Host(k[1])}
		if pair[0] == pair[1] || pair[0] < 0 || pair[1] < 0 || seen[pair] {
			continue
		}
		seen[pair] = true
		if err := hc.cutHosts(pair[0], pair[1]); err != nil {
			f.host.fail("%s: %v", e.what, err)
			continue
		}
		e.hosts = append(e.hosts, pair)
	}
}

// healHosts removes e's cuts between hosts.
func (f *faults) healHosts(e *linkEffect) {
	if len(e.hosts) == 0 {
		return
	}
	hc := f.procs.hosts.placement.(hostCutter) // cutHosts made e.hosts with it
	for _, pair := range e.hosts {
		if err := hc.healHosts(pair[0], pair[1]); err != nil {
			f.host.fail("heal %s: %v", e.what, err)
		}
	}
	e.hosts = nil
}

// healHostCuts removes the cuts between hosts still in force when the
// trial ends: the hosts serve the next trial.
func (f *faults) healHostCuts() {
	for _, id := range slices.Sorted(maps.Keys(f.effects)) {
		if e := f.effects[id]; e.hostCut {
			f.healHosts(e)
		}
	}
}

// tellSenders sends each live sender of e's links the command cmd makes
// of it and the peers its links of e lead to.
func (f *faults) tellSenders(e *linkEffect, cmd func(from int, to []int) live.Command) {
	ps := f.procs
	to := map[int][]int{}
	for _, k := range e.links {
		to[k[0]] = append(to[k[0]], k[1])
	}
	for _, from := range slices.Sorted(maps.Keys(to)) {
		if ps.alive[from] {
			ps.write(ps.byPos[from], cmd(from, to[from]))
		}
	}
}

// redial tells the live senders of links that can carry messages again
// (a healed cut, proxies rewired to a restarted process) to dial them at
// once: a node's dialer waits up to 100 ms between attempts on a link that
// is down, and a cut of 30T healed at T = 1 ms would otherwise last until
// the next attempt, two or three times as long.
func (f *faults) redial(links []link) {
	ps := f.procs
	told := map[int]bool{}
	for _, k := range links {
		if from := k[0]; !told[from] && ps.alive[from] {
			told[from] = true
			ps.write(ps.byPos[from], live.Command{Type: "redial"})
		}
	}
}

// --- primitives ----------------------------------------------------------------

// crash SIGKILLs position p's process. Unless undetected, the perfect
// detector tells the others: at the start, the initiators at once (when
// the run starts), else D after the crash.
func (f *faults) crash(p int, undetected bool) {
	if !f.procs.alive[p] {
		return
	}
	f.down(p)
	switch {
	case undetected:
	case !f.clock.started:
		f.downAtStart = append(f.downAtStart, p)
	default:
		f.detect(p, false)
	}
}

// down SIGKILLs live position p's process and records the crash; the
// detector is told separately.
func (f *faults) down(p int) {
	wasLeader := trial.Leading(injector{f}) == p
	f.procs.down(p)
	f.host.recount()
	f.log.crash(f.clock.now(), p, wasLeader)
	if f.clock.started {
		f.faulty = true
	}
}

// detect is the perfect detector, with the harness as its oracle: every
// live process is told D after the crash; at the start, the initiators are
// told at once. A heartbeat detector needs no help.
func (f *faults) detect(c int, atStart bool) {
	if f.det.Kind == "heartbeat" {
		return
	}
	ps := f.procs
	n := len(ps.byPos)
	now := make([]bool, n)
	if atStart {
		for _, p := range f.cfg.Initiators {
			now[p] = true
		}
		if f.cfg.Algorithm.StartsAll {
			for p := range now {
				now[p] = true
			}
		}
	}
	at := f.clock.now()
	for q := range n {
		if q == c || !ps.alive[q] {
			continue
		}
		if now[q] {
			f.host.command(ps.byPos[q], live.Command{Type: "suspect", Peer: c})
			continue
		}
		f.clock.after(at+f.det.D, func() {
			if ps.alive[q] {
				f.host.command(ps.byPos[q], live.Command{Type: "suspect", Peer: c})
			}
		})
	}
}

// stepped tells the timeline what a step at `at` brought: the first
// initiation, election messages sent, decisions (each the latest leader
// named).
func (f *faults) stepped(at time.Duration, r *live.Report, leaders []nodes.Rank) {
	tl := f.tl
	initiated := f.firstInit >= 0
	switch r.Ev {
	case "start":
		if f.cfg.Algorithm.StartsAll && (f.firstInit < 0 || at < f.firstInit) {
			f.firstInit = at
		}
	case "initiate":
		if f.firstInit < 0 || at < f.firstInit {
			f.firstInit = at
		}
	}
	if !initiated && f.firstInit >= 0 && tl != nil {
		tl.Initiated()
	}
	for i := range r.Sent {
		if r.Sent[i].Kind.IsElection() {
			f.elected++
			if tl.WantsSends() {
				tl.Sent(f.elected)
			}
		}
	}
	for _, leader := range leaders {
		f.lastLeader = leader
		if tl != nil {
			tl.Decided()
		}
	}
}
