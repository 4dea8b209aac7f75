package workloads

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// liveUnsupported says why the live runtime cannot apply a fault kind; a
// kind not listed runs live (liveFault.activate).
var liveUnsupported = map[string]string{
	"loss":      "TCP links never lose a message and the node's link layer cannot drop one in this build",
	"duplicate": "the node's link layer cannot duplicate a message in this build",
	"reorder":   "the node's link layer cannot reorder messages in this build (TCP keeps each link FIFO)",
}

// lossyKinds are the link toxics that lose messages written to the link.
var lossyKinds = map[string]bool{"blackhole": true, "reset": true, "limit-data": true}

// checkLive reports what of a scenario the live runtime cannot do: every
// such fault is named, with the reason, and nothing runs.
func checkLive(sc *chaos.Scenario, spec *Spec, fail func(field, format string, args ...any)) {
	if len(sc.Network.Links) > 0 {
		fail("network.links", "runtime live: per-link latency models are simulator-only; live links all take network.latency")
	}
	for i := range sc.Faults {
		f := &sc.Faults[i]
		path := fmt.Sprintf("faults[%d]", i)
		if why, ok := liveUnsupported[f.Kind]; ok {
			fail(path+".kind", "runtime live cannot apply a %s fault: %s; run this scenario with runtime: sim", f.Kind, why)
			continue
		}
		if f.Kind == "suspect" && spec.Detector.Kind == "heartbeat" {
			fail(path+".kind", "runtime live cannot apply a suspect fault under the heartbeat detector (its nodes judge by their own heartbeats); use perfect(D), or runtime: sim")
		}
		if f.Kind == "crash" && f.Start.Kind == chaos.AtStart && (!f.For.IsZero() || f.Heal != nil) {
			fail(path+".for", "runtime live cannot restart a process crashed at start: it never linked to its peers; crash it at a time or trigger instead")
		}
	}
}

// streamFaults seeds the fault stream of a live trial (random(k), toxicity).
const streamFaults = 0xfa17

// liveFault is one scenario fault in one live trial.
type liveFault struct {
	f       *chaos.Fault
	idx     int
	state   uint8 // lfPending, lfActive, lfDone
	targets []int
	links   [][2]int
}

const (
	lfPending uint8 = iota
	lfActive
	lfDone
)

// liveWorld is the live trial as chaos selectors see it (chaos.World).
type liveWorld struct{ lt *liveTrial }

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
	if w.lt.t.Algo.Alg.StartsAll {
		return allPositions(w.lt.n)
	}
	return w.lt.initiators
}
func (w liveWorld) Rand() *rand.Rand {
	if w.lt.faultRand == nil {
		w.lt.faultRand = rand.New(rand.NewPCG(w.lt.t.Seed, streamFaults))
	}
	return w.lt.faultRand
}

// record adds an entry to the trial's fault schedule (the faults column).
func (lt *liveTrial) record(what string) {
	lt.faultLog = append(lt.faultLog, trial.FaultEvent{At: lt.now(), What: what})
}

// chaosAtStart crashes the processes a scenario crashes at start: before
// the links are made, as the run's own crashes at the start.
func (lt *liveTrial) chaosAtStart() {
	for i := range lt.s.Faults {
		f := &lt.s.Faults[i]
		lt.lfaults = append(lt.lfaults, &liveFault{f: f, idx: i})
	}
	for _, lf := range lt.lfaults {
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

// chaosArm applies the other faults at start (atStart: once the links
// exist, before the run starts), or arms every other trigger (once it has
// started).
func (lt *liveTrial) chaosArm(ctx context.Context, atStart bool) {
	for _, lf := range lt.lfaults {
		lt.faulty = true
		if lf.state != lfPending || (lf.f.Start.Kind == chaos.AtStart) != atStart {
			continue
		}
		lt.when(lf.f.Start, func() { lt.activate(ctx, lf) })
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
	switch t.Kind {
	case chaos.AtStart:
		f()
	case chaos.AtTime:
		lt.after(t.At.Of(lt.T), f)
	case chaos.ElectionStart:
		if lt.firstInit >= 0 {
			delayed()
		} else {
			lt.onElectionStart = append(lt.onElectionStart, delayed)
		}
	case chaos.LeaderElected:
		if !lt.lastLeader.IsZero() {
			delayed()
		} else {
			lt.onDecided = append(lt.onDecided, delayed)
		}
	case chaos.AfterMessages:
		if lt.elected >= t.K {
			delayed()
		} else {
			lt.onMessages = append(lt.onMessages, msgWait{k: t.K, f: delayed})
		}
	}
}

type msgWait struct {
	k int64
	f func()
}

// chaosElectionStart, chaosDecided and chaosMessages fire the triggers
// waiting for an event of the run: the first initiation, the first
// decision, an election message.
func (lt *liveTrial) chaosElectionStart() {
	fs := lt.onElectionStart
	lt.onElectionStart = nil
	for _, f := range fs {
		f()
	}
}

func (lt *liveTrial) chaosDecided() {
	fs := lt.onDecided
	lt.onDecided = nil
	for _, f := range fs {
		f()
	}
}

func (lt *liveTrial) chaosMessages() {
	var fire []func()
	kept := lt.onMessages[:0]
	for _, w := range lt.onMessages {
		if lt.elected >= w.k {
			fire = append(fire, w.f)
		} else {
			kept = append(kept, w)
		}
	}
	lt.onMessages = kept
	for _, f := range fire {
		f()
	}
}

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
			if !lt.alive[p] || lt.paused[p] {
				continue
			}
			if err := pauseGroup(lt.procs[p].pid); err != nil {
				lt.fail("pausing node %d: %v", p, err)
				continue
			}
			lt.paused[p] = true
			if f.For.IsZero() && f.Heal == nil {
				lt.gone[p] = true // to the end of the run
			}
			hit = append(hit, p)
		}
		lf.targets = hit
		lt.recount()
		lt.record("pause(" + positionList(hit) + ")")
	case "suspect":
		for _, q := range f.ObserverSet(w) {
			for _, c := range lf.targets {
				if q != c && lt.alive[q] {
					lt.send(lt.procs[q], live.Command{Type: "suspect", Peer: c})
				}
			}
		}
		lt.record("suspect(" + positionList(lf.targets) + ")")
		lf.state = lfDone
		return
	default: // partitions and link toxics
		ls := f.LinkSet(w)
		for _, l := range lt.links {
			if !ls.Has(l[0], l[1]) {
				continue
			}
			if f.Toxicity > 0 && f.Toxicity < 1 && w.Rand().Float64() >= f.Toxicity {
				continue
			}
			lf.links = append(lf.links, l)
		}
		lossy := f.Kind == "partition" || lossyKinds[f.Kind]
		if lossy {
			for _, l := range lf.links {
				lt.lossy[l[0]*lt.n+l[1]] = true
			}
			lt.recount()
		}
		if f.Kind == "partition" {
			var toCut [][2]int
			for _, l := range lf.links {
				if lt.cuts[l]++; lt.cuts[l] == 1 {
					toCut = append(toCut, l)
				}
			}
			lt.toxic(ctx, f.Label(), toCut, func(ctx context.Context, l [2]int) error {
				return lt.r.client.SetEnabled(ctx, lt.proxy[l], false)
			})
		} else {
			tx, _ := f.Toxic(lt.T)
			name := lt.toxicName(lf)
			lt.toxic(ctx, f.Label(), lf.links, func(ctx context.Context, l [2]int) error {
				return lt.r.client.AddToxic(ctx, lt.proxy[l], name, tx.Type, tx.Attributes)
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

func (lt *liveTrial) toxicName(lf *liveFault) string {
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
				resumeGroup(lt.procs[p].pid)
				lt.paused[p] = false
				hit = append(hit, p)
			}
		}
		lt.record("resume(" + positionList(hit) + ")")
	case "partition":
		var heal [][2]int
		for _, l := range lf.links {
			if lt.cuts[l]--; lt.cuts[l] == 0 {
				heal = append(heal, l)
			}
		}
		lt.toxic(ctx, "heal "+f.Label(), heal, func(ctx context.Context, l [2]int) error {
			return lt.r.client.SetEnabled(ctx, lt.proxy[l], true)
		})
		lt.record("heal " + f.Label())
	default:
		name := lt.toxicName(lf)
		lt.toxic(ctx, "heal "+f.Label(), lf.links, func(ctx context.Context, l [2]int) error {
			return lt.r.client.RemoveToxic(ctx, lt.proxy[l], name)
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
		if !slices.ContainsFunc(lt.links, func(l [2]int) bool { return l[0] == p }) {
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

var _ chaos.World = liveWorld{}
