package harness

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// This file is every fault a live trial injects: the trial's crashes
// (trial.Config.Crashes), a scenario's faults (chaos.Fault, as its file
// wrote them) and the Go API's (Fault), with the primitives they act
// through — SIGKILL, SIGSTOP and SIGCONT, respawning, the perfect
// detector's suspect commands, Toxiproxy's proxies and toxics. Kept
// together so that it can give way to a trial.Injector driven by the fault
// timeline.

// Fault is one fault the Go API injects into a live run at a time after
// its start (the harness's clock). Position lists name processes by ring
// position.
type Fault struct {
	// Kind is pause (SIGSTOP, then SIGCONT after For), restart (SIGKILL,
	// then a new process with the same identity after For), partition (the
	// links between Groups are cut, healed after For) or latency (Links get
	// Latency ± Jitter, restored after For).
	Kind    string
	Procs   []int    // pause, restart
	Groups  [][]int  // partition: each group talks only among itself
	Silent  bool     // partition by a timeout toxic (silent drops) rather than disabled proxies (failed connections)
	Links   [][2]int // latency: directed links (from, to)
	Latency time.Duration
	Jitter  time.Duration // Toxiproxy's own, unseeded
	At      time.Duration // since the run's start
	For     time.Duration // how long; 0 means until the end of the run
}

// Halves splits positions 0..n-1 into the first and the second half: the
// halves partition.
func Halves(n int) [][]int {
	a, b := make([]int, 0, n/2), make([]int, 0, n-n/2)
	for i := range n {
		if i < n/2 {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	return [][]int{a, b}
}

// streamFaults seeds the fault stream of a live trial (random(k), toxicity).
const streamFaults = 0xfa17

// lossyKinds are the link toxics that lose messages written to the link.
var lossyKinds = map[string]bool{"blackhole": true, "reset": true, "limit-data": true}

// faults are a trial's faults waiting for their triggers.
type faults struct {
	scenario        []*liveFault
	rand            *rand.Rand
	onElectionStart []func()
	onDecided       []func()
	onMessages      []msgWait
	afterMsgs       []int // crashes (cfg.Crashes) waiting for a message count
	onElected       []int // crashes waiting for the first decision
}

// liveFault is one scenario fault in one live trial.
type liveFault struct {
	f       *chaos.Fault
	idx     int
	state   uint8 // lfPending, lfActive, lfDone
	targets []int
	links   []link
}

const (
	lfPending uint8 = iota
	lfActive
	lfDone
)

type msgWait struct {
	k int64
	f func()
}

// liveWorld is the live trial as chaos selectors see it (chaos.World).
type liveWorld struct{ lt *liveTrial }

var _ chaos.World = liveWorld{}

func (w liveWorld) N() int                { return w.lt.n }
func (w liveWorld) Rank(p int) nodes.Rank { return w.lt.ranks[p] }
func (w liveWorld) Alive(p int) bool      { return w.lt.alive[p] }
func (w liveWorld) Leader() int {
	if w.lt.lastLeader.IsZero() {
		return -1
	}
	return slices.Index(w.lt.ranks, w.lt.lastLeader)
}
func (w liveWorld) Initiators() []int {
	if w.lt.cfg.Algorithm.StartsAll {
		all := make([]int, w.lt.n)
		for i := range all {
			all[i] = i
		}
		return all
	}
	return w.lt.cfg.Initiators
}
func (w liveWorld) Now() time.Duration { return w.lt.now() }
func (w liveWorld) Rand() *rand.Rand {
	if w.lt.faults.rand == nil {
		w.lt.faults.rand = rand.New(rand.NewPCG(w.lt.cfg.Seed, streamFaults))
	}
	return w.lt.faults.rand
}

// record adds an entry to the trial's fault schedule (the faults column).
func (lt *liveTrial) record(what string) { lt.log.fault(lt.now(), what) }

// --- arming --------------------------------------------------------------------

// crashAtStart crashes the processes the trial or its scenario crashes at
// start: before the links are made, so they never run.
func (lt *liveTrial) crashAtStart() {
	for _, c := range lt.cfg.Crashes {
		if c.When == trial.AtStart {
			lt.crash(c.Pos, true)
		}
	}
	for i := range lt.scenario {
		lt.faults.scenario = append(lt.faults.scenario, &liveFault{f: &lt.scenario[i], idx: i})
	}
	for _, lf := range lt.faults.scenario {
		if lf.f.Start.Kind == chaos.AtStart && lf.f.Kind == "crash" {
			lf.state = lfActive
			lf.targets = lf.f.Targets(liveWorld{lt})
			for _, p := range lf.targets {
				lt.crash(p, true)
			}
			lt.record(lf.f.Label() + "(" + positionList(lf.targets) + ")")
		}
	}
}

// armFaults applies the faults at start (atStart: once the links exist,
// before the run starts), or arms every other trigger (once it has
// started).
func (lt *liveTrial) armFaults(ctx context.Context, atStart bool) {
	goFaults := lt.r.opt.Faults
	if atStart {
		for i := range goFaults {
			if goFaults[i].At <= 0 {
				lt.inject(ctx, &goFaults[i])
			}
		}
	}
	for _, lf := range lt.faults.scenario {
		lt.faulty = true
		if lf.state != lfPending || (lf.f.Start.Kind == chaos.AtStart) != atStart {
			continue
		}
		lt.when(lf.f.Start, func() { lt.activate(ctx, lf) })
	}
	if atStart {
		return
	}
	for i, c := range lt.cfg.Crashes {
		switch c.When {
		case trial.AtTime:
			lt.after(c.At, func() { lt.crash(lt.target(c.Pos), false) })
		case trial.AfterMessages:
			lt.faults.afterMsgs = append(lt.faults.afterMsgs, i)
		case trial.LeaderElected:
			lt.faults.onElected = append(lt.faults.onElected, i)
		}
	}
	for i := range goFaults {
		f := &goFaults[i]
		if f.At > 0 {
			lt.after(f.At, func() { lt.inject(ctx, f) })
		}
		lt.faulty = true
	}
}

// when runs f once trigger t fires (plus its delay). Times count as
// pending harness actions; events (election start, the first decision, a
// message count) do not, as they may never come.
func (lt *liveTrial) when(t chaos.Trigger, f func()) {
	delayed := func() {
		if d := t.Delay.Of(lt.T); d > 0 {
			lt.after(lt.now()+d, f)
		} else {
			f()
		}
	}
	fs := &lt.faults
	switch t.Kind {
	case chaos.AtStart:
		f()
	case chaos.AtTime:
		lt.after(t.At.Of(lt.T), f)
	case chaos.ElectionStart:
		if lt.firstInit >= 0 {
			delayed()
		} else {
			fs.onElectionStart = append(fs.onElectionStart, delayed)
		}
	case chaos.LeaderElected:
		if !lt.lastLeader.IsZero() {
			delayed()
		} else {
			fs.onDecided = append(fs.onDecided, delayed)
		}
	case chaos.AfterMessages:
		if lt.elected >= t.K {
			delayed()
		} else {
			fs.onMessages = append(fs.onMessages, msgWait{k: t.K, f: delayed})
		}
	}
}

// --- triggers, fired from the nodes' steps -------------------------------------

// electionStarted fires what waits for the first initiation.
func (lt *liveTrial) electionStarted() {
	fs := lt.faults.onElectionStart
	lt.faults.onElectionStart = nil
	for _, f := range fs {
		f()
	}
}

// electionMessage fires what waits for the election message just counted.
func (lt *liveTrial) electionMessage() {
	fs := &lt.faults
	if len(fs.afterMsgs) > 0 {
		kept := fs.afterMsgs[:0]
		for _, i := range fs.afterMsgs {
			if c := lt.cfg.Crashes[i]; lt.elected >= c.K {
				lt.crash(lt.target(c.Pos), false)
			} else {
				kept = append(kept, i)
			}
		}
		fs.afterMsgs = kept
	}
	if len(fs.onMessages) > 0 {
		var fire []func()
		kept := fs.onMessages[:0]
		for _, w := range fs.onMessages {
			if lt.elected >= w.k {
				fire = append(fire, w.f)
			} else {
				kept = append(kept, w)
			}
		}
		fs.onMessages = kept
		for _, f := range fire {
			f()
		}
	}
}

// decided fires what waits for a decision.
func (lt *liveTrial) decided() {
	fs := &lt.faults
	if len(fs.onElected) > 0 {
		for _, i := range fs.onElected {
			lt.crash(lt.target(lt.cfg.Crashes[i].Pos), false)
		}
		fs.onElected = nil
	}
	if len(fs.onDecided) > 0 {
		f := fs.onDecided
		fs.onDecided = nil
		for _, f := range f {
			f()
		}
	}
}

// --- scenario faults -----------------------------------------------------------

// activate starts a fault: its selectors resolve now, against the run as
// the harness sees it.
func (lt *liveTrial) activate(ctx context.Context, lf *liveFault) {
	if lf.state != lfPending || lt.stopping {
		return
	}
	lf.state = lfActive
	f, w := lf.f, liveWorld{lt}
	switch f.KindInfo().Class {
	case chaos.ProcessFault, chaos.DetectorFault:
		lf.targets = f.Targets(w)
	}
	switch f.Kind {
	case "crash":
		var hit []int
		for _, p := range lf.targets {
			if lt.alive[p] {
				lt.down(p)
				if !f.Undetected {
					lt.detect(p, false)
				}
				hit = append(hit, p)
			}
		}
		lf.targets = hit
		lt.record("crash(" + positionList(hit) + ")")
	case "restart":
		lt.record("restart(" + positionList(lt.restart(lf.targets)) + ")")
		lf.state = lfDone
		return
	case "pause":
		var hit []int
		for _, p := range lf.targets {
			if lt.alive[p] && !lt.paused[p] && lt.pause(p, f.For.IsZero() && f.Heal == nil) {
				hit = append(hit, p)
			}
		}
		lf.targets = hit
		lt.recount()
		lt.record("pause(" + positionList(hit) + ")")
	case "suspect":
		for _, q := range f.ObserverSet(w) {
			for _, c := range lf.targets {
				if q != c && lt.alive[q] {
					lt.send(lt.procs.byPos[q], live.Command{Type: "suspect", Peer: c})
				}
			}
		}
		lt.record("suspect(" + positionList(lf.targets) + ")")
		lf.state = lfDone
		return
	default: // partitions and link toxics
		ls := f.LinkSet(w)
		for _, l := range lt.links.list {
			if !ls.Has(l[0], l[1]) {
				continue
			}
			if f.Toxicity > 0 && f.Toxicity < 1 && w.Rand().Float64() >= f.Toxicity {
				continue
			}
			lf.links = append(lf.links, l)
		}
		if f.Kind == "partition" || lossyKinds[f.Kind] {
			lt.lossy(lf.links)
		}
		if f.Kind == "partition" {
			var toCut []link
			for _, l := range lf.links {
				if lt.links.cuts[l]++; lt.links.cuts[l] == 1 {
					toCut = append(toCut, l)
				}
			}
			lt.toxic(ctx, f.Label(), toCut, func(ctx context.Context, l link) error {
				return lt.r.client.SetEnabled(ctx, lt.links.proxy[l], false)
			})
		} else {
			tx, _ := f.Toxic(lt.T)
			name := toxicName(lf)
			lt.toxic(ctx, f.Label(), lf.links, func(ctx context.Context, l link) error {
				return lt.r.client.AddToxic(ctx, lt.links.proxy[l], name, tx.Type, tx.Attributes)
			})
		}
		lt.record(f.Label() + "[" + ls.Text + "]")
	}
	if f.KindInfo().Heals == "" {
		lf.state = lfDone
		return
	}
	if d := f.For.Of(lt.T); d > 0 {
		lt.after(lt.now()+d, func() { lt.end(ctx, lf) })
	}
	if f.Heal != nil {
		lt.when(*f.Heal, func() { lt.end(ctx, lf) })
	}
}

func toxicName(lf *liveFault) string {
	return "chaos-" + strconv.Itoa(lf.idx) + "-" + lf.f.Kind
}

// end heals an active fault: restart, resume, reconnect, remove the toxic.
func (lt *liveTrial) end(ctx context.Context, lf *liveFault) {
	if lf.state != lfActive || lt.stopping {
		return
	}
	lf.state = lfDone
	f := lf.f
	switch f.Kind {
	case "crash":
		lt.record("restart(" + positionList(lt.restart(lf.targets)) + ")")
	case "pause":
		var hit []int
		for _, p := range lf.targets {
			if lt.paused[p] && lt.alive[p] {
				lt.resume(p)
				hit = append(hit, p)
			}
		}
		lt.record("resume(" + positionList(hit) + ")")
	case "partition":
		var heal []link
		for _, l := range lf.links {
			if lt.links.cuts[l]--; lt.links.cuts[l] == 0 {
				heal = append(heal, l)
			}
		}
		lt.toxic(ctx, "heal "+f.Label(), heal, func(ctx context.Context, l link) error {
			return lt.r.client.SetEnabled(ctx, lt.links.proxy[l], true)
		})
		lt.record("heal " + f.Label())
	default:
		name := toxicName(lf)
		lt.toxic(ctx, "heal "+f.Label(), lf.links, func(ctx context.Context, l link) error {
			return lt.r.client.RemoveToxic(ctx, lt.links.proxy[l], name)
		})
		lt.record("heal " + f.Label())
	}
}

// restart respawns the crashed processes among ps with their identities
// and returns them; a process crashed at the start has no links and stays
// down.
func (lt *liveTrial) restart(ps []int) []int {
	var out []int
	for _, p := range ps {
		if lt.alive[p] || lt.restarting[p] || lt.refused[p] {
			continue
		}
		if !slices.ContainsFunc(lt.links.list, func(l link) bool { return l[0] == p }) {
			lt.fail("cannot restart node %d: it was down from the start and has no links", p)
			continue
		}
		lt.restarting[p] = true
		lt.respawn(p)
		out = append(out, p)
	}
	return out
}

// positionList writes positions as "1,4,7".
func positionList(ps []int) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

// --- the Go API's faults -------------------------------------------------------

// inject applies one Go API fault and schedules its end; both go in the
// schedule.
func (lt *liveTrial) inject(ctx context.Context, f *Fault) {
	lt.faulty = true
	switch f.Kind {
	case "pause":
		var hit []int
		for _, p := range f.Procs {
			if p >= 0 && p < lt.n && lt.alive[p] && lt.pause(p, f.For <= 0) {
				hit = append(hit, p)
			}
		}
		lt.recount()
		lt.record("pause(" + positionList(hit) + ")")
		if f.For > 0 {
			lt.after(f.At+f.For, func() {
				var back []int
				for _, p := range hit {
					if lt.paused[p] {
						lt.resume(p)
						back = append(back, p)
					}
				}
				lt.record("resume(" + positionList(back) + ")")
			})
		}
	case "restart":
		var hit []int
		for _, p := range f.Procs {
			if p < 0 || p >= lt.n || !lt.alive[p] {
				continue
			}
			lt.crash(p, false)
			lt.restarting[p] = true
			lt.after(f.At+f.For, func() {
				if lt.respawn(p) {
					lt.record("restart(" + strconv.Itoa(p) + ")")
				}
			})
			hit = append(hit, p)
		}
		lt.record("crash(" + positionList(hit) + ")")
	case "partition":
		group := make([]int, lt.n)
		for i := range group {
			group[i] = -1
		}
		var text []string
		for g, ps := range f.Groups {
			for _, p := range ps {
				if p >= 0 && p < lt.n {
					group[p] = g
				}
			}
			text = append(text, positionList(ps))
		}
		var cut []link
		for _, l := range lt.links.list {
			if group[l[0]] != group[l[1]] {
				cut = append(cut, l)
			}
		}
		lt.lossy(cut)
		lt.toxic(ctx, "partition", cut, func(ctx context.Context, l link) error {
			if f.Silent {
				return lt.r.client.Cut(ctx, lt.links.proxy[l])
			}
			return lt.r.client.SetEnabled(ctx, lt.links.proxy[l], false)
		})
		lt.record("partition[" + strings.Join(text, "|") + "]")
		if f.For > 0 {
			lt.after(f.At+f.For, func() {
				lt.toxic(ctx, "heal", cut, func(ctx context.Context, l link) error {
					if f.Silent {
						return lt.r.client.Heal(ctx, lt.links.proxy[l])
					}
					return lt.r.client.SetEnabled(ctx, lt.links.proxy[l], true)
				})
				lt.record("heal partition")
			})
		}
	case "latency":
		var links []link
		for _, l := range f.Links {
			if _, ok := lt.links.proxy[l]; ok {
				links = append(links, l)
			}
		}
		lt.toxic(ctx, "latency", links, func(ctx context.Context, l link) error {
			return lt.r.client.SetLatency(ctx, lt.links.proxy[l], f.Latency, f.Jitter)
		})
		lt.record("latency(" + f.Latency.String() + ")")
		if f.For > 0 {
			lt.after(f.At+f.For, func() {
				lt.toxic(ctx, "restore latency", links, func(ctx context.Context, l link) error {
					return lt.r.client.SetLatency(ctx, lt.links.proxy[l], lt.links.latency[l], lt.links.jitter[l])
				})
				lt.record("heal latency")
			})
		}
	default:
		lt.fail("unknown live fault %q", f.Kind)
	}
}

// --- primitives ----------------------------------------------------------------

// crash SIGKILLs position p's process and lets the detector notice.
func (lt *liveTrial) crash(p int, atStart bool) {
	if !lt.alive[p] {
		return
	}
	lt.down(p)
	if !atStart {
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
	} else {
		lt.downAtStart = append(lt.downAtStart, p)
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

// pause stops p's process (SIGSTOP); forever says it will not be resumed
// before the run ends. Callers recount.
func (lt *liveTrial) pause(p int, forever bool) bool {
	if err := pauseGroup(lt.procs.byPos[p].pid); err != nil {
		lt.fail("pausing node %d: %v", p, err)
		return false
	}
	lt.paused[p] = true
	if forever {
		lt.gone[p] = true
	}
	lt.log.proc(lt.now(), trial.EvPause, p)
	return true
}

// resume continues a paused process (SIGCONT).
func (lt *liveTrial) resume(p int) {
	resumeGroup(lt.procs.byPos[p].pid)
	lt.paused[p] = false
	lt.log.proc(lt.now(), trial.EvResume, p)
}

// lossy marks links that may lose the messages written to them.
func (lt *liveTrial) lossy(ls []link) {
	for _, l := range ls {
		lt.links.lossy[l[0]*lt.n+l[1]] = true
	}
	lt.recount()
}
