package harness

import (
	"context"
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

// faults are a trial's fault timeline and what the injector keeps.
type faults struct {
	tl   *timeline.Timeline
	rand *rand.Rand
	// early are the actions scheduled before the run's clock started
	// (heals of faults in force from the start): scheduled at its start.
	early []timed
	// due are the actions due now: run once the handler running now has
	// returned.
	due []func()
	// effects are the link effects in force (or waiting for the links to
	// exist, at the start), by the fault's ID.
	effects map[int]*linkEffect
	// deferred are link effects begun before the links existed: applied
	// once they do, before the run starts.
	deferred []*linkEffect
}

type timed struct {
	at time.Duration
	f  func()
}

// linkEffect is one link fault in force on the links it affects: a cut
// (disabled proxies) or a toxic on each link's proxy.
type linkEffect struct {
	l     trial.LinkEffect
	what  string
	links []link
	cut   bool
	toxic toxic
}

// toxic is a Toxiproxy toxic as the harness adds it to the proxy of a
// link a→b, which a dials: upstream, on every connection.
type toxic struct {
	name  string
	typ   string           // Toxiproxy's type: latency, bandwidth, slicer, limit_data, timeout, reset_peer, slow_close
	attrs map[string]int64 // in Toxiproxy's units: ms, KB/s, µs, bytes
}

// newFaults prepares the trial's fault timeline, refusing a fault the
// live runtime cannot apply before anything starts.
func newFaults(cfg *trial.Config) (faults, error) {
	tl, err := timeline.New(cfg.Faults)
	if err != nil {
		return faults{}, err
	}
	if err := tl.Check(injector{}); err != nil {
		return faults{}, err
	}
	return faults{tl: tl, effects: map[int]*linkEffect{}}, nil
}

// injector is the live trial as the fault timeline sees and acts on it:
// its trial.View and trial.Injector, and the link-shaping interfaces
// Toxiproxy has a toxic for. Loss, duplication, reordering and per-link
// latency models have none, so the timeline refuses them before a live
// run (TCP links never lose or reorder a message).
type injector struct{ lt *liveTrial }

var (
	_ trial.Injector   = injector{}
	_ trial.Delayer    = injector{}
	_ trial.Throttler  = injector{}
	_ trial.Slicer     = injector{}
	_ trial.Limiter    = injector{}
	_ trial.Blackholer = injector{}
	_ trial.Resetter   = injector{}
	_ trial.SlowCloser = injector{}
)

func (in injector) N() int                { return in.lt.n }
func (in injector) Rank(p int) nodes.Rank { return in.lt.ranks[p] }
func (in injector) Alive(p int) bool      { return in.lt.alive[p] }
func (in injector) Now() time.Duration    { return in.lt.now() }

// Leader is the position the latest decision named, or -1.
func (in injector) Leader() int {
	if in.lt.lastLeader.IsZero() {
		return -1
	}
	return slices.Index(in.lt.ranks, in.lt.lastLeader)
}

// Initiators are the positions told to initiate; everyone for algorithms
// in which everyone starts.
func (in injector) Initiators() []int {
	if in.lt.cfg.Algorithm.StartsAll {
		return everyPosition(in.lt.n)
	}
	return in.lt.cfg.Initiators
}

// Rand is the trial's fault stream, the simulator's.
func (in injector) Rand() *rand.Rand {
	fs := &in.lt.faults
	if fs.rand == nil {
		fs.rand = trial.FaultRand(in.lt.cfg.Seed)
	}
	return fs.rand
}

// At runs f at time at on the trial's goroutine: at once after the
// handler running now if at has come, else when it comes. Before the
// run's clock starts (faults in force from the start), it waits for it.
func (in injector) At(at time.Duration, f func()) {
	lt := in.lt
	switch {
	case !lt.started:
		lt.faults.early = append(lt.faults.early, timed{at, f})
	case at <= lt.now():
		lt.pending++
		lt.faults.due = append(lt.faults.due, f)
	default:
		lt.after(at, f)
	}
}

// Crash SIGKILLs p. The perfect detector tells the others, unless the
// fault is undetected: at once for the initiators of a crash at the
// start, D after it otherwise.
func (in injector) Crash(p int, _, undetected bool) { in.lt.crash(p, undetected) }

// Restart respawns p with its identity, if it is down.
func (in injector) Restart(p int) {
	lt := in.lt
	if lt.alive[p] || lt.restarting[p] || lt.refused[p] {
		return
	}
	if !slices.ContainsFunc(lt.links.list, func(l link) bool { return l[0] == p }) {
		lt.fail("cannot restart node %d: it was down from the start and has no links", p)
		return
	}
	lt.restarting[p] = true
	lt.respawn(p)
}

// Pause stops p's process (SIGSTOP). While paused it counts as gone for
// settling, as the simulator holds its events: a run with nothing else
// pending is over.
func (in injector) Pause(p int) {
	lt := in.lt
	if !lt.alive[p] || lt.paused[p] {
		return
	}
	if err := pauseGroup(lt.procs.byPos[p].pid); err != nil {
		lt.fail("pausing node %d: %v", p, err)
		return
	}
	lt.paused[p], lt.gone[p] = true, true
	lt.recount()
	lt.log.proc(lt.now(), trial.EvPause, p)
}

// Resume continues a paused process (SIGCONT).
func (in injector) Resume(p int) {
	lt := in.lt
	if !lt.paused[p] {
		return
	}
	resumeGroup(lt.procs.byPos[p].pid)
	lt.paused[p] = false
	lt.gone[p] = !lt.alive[p] || lt.restarting[p]
	lt.recount()
	lt.log.proc(lt.now(), trial.EvResume, p)
}

// Suspect makes observer's detector suspect q through the control channel.
func (in injector) Suspect(observer, q int) {
	lt := in.lt
	if lt.alive[observer] {
		lt.send(lt.procs.byPos[observer], live.Command{Type: "suspect", Peer: q})
	}
}

// Note records a start or heal in the schedule; traced says it is a
// scenario's fault, which the trace shows (a --crash crash is not).
func (in injector) Note(what string, traced bool) { in.lt.log.fault(in.lt.now(), what, traced) }

// Cut disables the proxies of the links, so that every connection fails
// and nothing is carried until Heal.
func (in injector) Cut(l trial.LinkEffect) { in.lt.begin(l, &linkEffect{what: "cut", cut: true}) }

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

// toxic puts a toxic of Toxiproxy's type typ on the affected links.
func (in injector) toxic(l trial.LinkEffect, typ string, attrs map[string]int64) {
	in.lt.begin(l, &linkEffect{what: typ, toxic: toxic{name: "chaos-" + strconv.Itoa(l.ID) + "-" + typ, typ: typ, attrs: attrs}})
}

// lossyToxics lose what is written to a link while they hold.
var lossyToxics = map[string]bool{"timeout": true, "reset_peer": true, "limit_data": true}

// begin puts link effect e in force; before the links exist (a fault
// from the start) it waits for them.
func (lt *liveTrial) begin(l trial.LinkEffect, e *linkEffect) {
	e.l = l
	lt.faults.effects[l.ID] = e
	if lt.links.list == nil {
		lt.faults.deferred = append(lt.faults.deferred, e)
		return
	}
	lt.apply(lt.ctx, e)
}

// applyDeferred puts the effects begun before the links existed in force.
func (lt *liveTrial) applyDeferred(ctx context.Context) {
	for _, e := range lt.faults.deferred {
		lt.apply(ctx, e)
	}
	lt.faults.deferred = nil
}

// apply makes Toxiproxy carry out e on the links of the trial it
// affects, chosen by its toxicity exactly as the simulator chooses them.
func (lt *liveTrial) apply(ctx context.Context, e *linkEffect) {
	for _, k := range lt.links.list {
		if e.l.Affects(lt.cfg.Seed, k[0], k[1]) {
			e.links = append(e.links, k)
		}
	}
	if e.cut || lossyToxics[e.toxic.typ] {
		lt.lossy(e.links)
	}
	if e.cut {
		var toCut []link
		for _, k := range e.links {
			if lt.links.cuts[k]++; lt.links.cuts[k] == 1 {
				toCut = append(toCut, k)
			}
		}
		lt.toxic(ctx, e.what, toCut, func(ctx context.Context, k link) error {
			c, name := lt.proxy(k)
			return c.SetEnabled(ctx, name, false)
		})
		return
	}
	t := e.toxic
	lt.toxic(ctx, t.typ, e.links, func(ctx context.Context, k link) error {
		c, name := lt.proxy(k)
		return c.AddToxic(ctx, name, t.name, t.typ, t.attrs)
	})
}

// Heal ends link effect id: the proxies are enabled again (once no other
// cut holds them) or the toxic is removed.
func (in injector) Heal(id int) {
	lt := in.lt
	e := lt.faults.effects[id]
	if e == nil {
		return
	}
	delete(lt.faults.effects, id)
	if e.cut {
		var heal []link
		for _, k := range e.links {
			if lt.links.cuts[k]--; lt.links.cuts[k] == 0 {
				heal = append(heal, k)
			}
		}
		lt.toxic(lt.ctx, "heal "+e.what, heal, func(ctx context.Context, k link) error {
			c, name := lt.proxy(k)
			return c.SetEnabled(ctx, name, true)
		})
		lt.redial(heal)
		return
	}
	t := e.toxic
	lt.toxic(lt.ctx, "heal "+t.typ, e.links, func(ctx context.Context, k link) error {
		c, name := lt.proxy(k)
		return c.RemoveToxic(ctx, name, t.name)
	})
}

// runDue runs the actions due now, in order, and any they make due.
func (lt *liveTrial) runDue() {
	for len(lt.faults.due) > 0 {
		f := lt.faults.due[0]
		lt.faults.due = lt.faults.due[1:]
		lt.pending--
		f()
	}
}

// --- primitives ----------------------------------------------------------------

// crash SIGKILLs position p's process. Unless undetected, the perfect
// detector tells the others: at the start, the initiators at once (when
// the run starts), else D after the crash.
func (lt *liveTrial) crash(p int, undetected bool) {
	if !lt.alive[p] {
		return
	}
	lt.down(p)
	switch {
	case undetected:
	case !lt.started:
		lt.downAtStart = append(lt.downAtStart, p)
	default:
		lt.detect(p, false)
	}
}

// down SIGKILLs live position p's process and records the crash; the
// detector is told separately.
func (lt *liveTrial) down(p int) {
	wasLeader := lt.target(trial.CurrentLeader) == p
	lt.kill(lt.procs.byPos[p])
	lt.alive[p], lt.gone[p] = false, true
	lt.recount()
	lt.log.crash(lt.now(), p, wasLeader)
	if lt.started {
		lt.faulty = true
	}
}

// detect is the perfect detector, with the harness as its oracle: every
// live process is told D after the crash; at the start, the initiators are
// told at once. A heartbeat detector needs no help.
func (lt *liveTrial) detect(c int, atStart bool) {
	if lt.det.Kind == "heartbeat" {
		return
	}
	now := make([]bool, lt.n)
	if atStart {
		for _, p := range lt.cfg.Initiators {
			now[p] = true
		}
		if lt.cfg.Algorithm.StartsAll {
			for p := range now {
				now[p] = true
			}
		}
	}
	at := lt.now()
	for q := range lt.n {
		if q == c || !lt.alive[q] {
			continue
		}
		if now[q] {
			lt.send(lt.procs.byPos[q], live.Command{Type: "suspect", Peer: c})
			continue
		}
		lt.after(at+lt.det.D, func() {
			if lt.alive[q] {
				lt.send(lt.procs.byPos[q], live.Command{Type: "suspect", Peer: c})
			}
		})
	}
}

// lossy marks links that may lose the messages written to them.
func (lt *liveTrial) lossy(ls []link) {
	for _, l := range ls {
		lt.links.lossy[l[0]*lt.n+l[1]] = true
	}
	lt.recount()
}

func everyPosition(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
