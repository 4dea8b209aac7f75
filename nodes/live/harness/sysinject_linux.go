package harness

import (
	"math/rand/v2"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// sysInjector is a server trial as the fault timeline sees and acts on
// it: signals to the members' process groups and nftables rules between
// their addresses (system.Cluster). Loss is the one link shaping it
// applies: a link's packets dropped at random by the kernel, under the
// servers' own TCP. The run's latency is in the members' inbound proxies
// from the start (memberDelays); a link fault that delays would need a
// proxy of the link's own, which no link has, so the timeline refuses it
// before the run.
type sysInjector struct{ st *sysTrial }

var (
	_ trial.Injector = sysInjector{}
	_ trial.Loser    = sysInjector{}
)

func (in sysInjector) N() int                { return in.st.n }
func (in sysInjector) Rank(p int) nodes.Rank { return in.st.ranks[p] }
func (in sysInjector) Alive(p int) bool      { return in.st.alive[p] }
func (in sysInjector) Now() time.Duration    { return in.st.now() }
func (in sysInjector) Leader() int           { return in.st.latest }
func (in sysInjector) Initiators() []int     { return trial.AllPositions(in.st.n) }

// Rand is the trial's fault stream, the simulator's.
func (in sysInjector) Rand() *rand.Rand {
	if in.st.rand == nil {
		in.st.rand = trial.FaultRand(in.st.cfg.Seed)
	}
	return in.st.rand
}

// At runs f at time at on the trial's goroutine.
func (in sysInjector) At(at time.Duration, f func()) {
	st := in.st
	time.AfterFunc(max(at-st.now(), 0), func() { st.actions <- f })
}

// Crash SIGKILLs member p's process group. The servers detect it
// themselves: undetected changes nothing.
func (in sysInjector) Crash(p int, _, _ bool) {
	st := in.st
	if !st.alive[p] {
		return
	}
	at := st.now() // the SIGKILL's, not the exit's, which Crash waits for
	st.c.Crash(p)
	st.alive[p], st.paused[p] = false, false
	st.leader[p] = -1
	st.add(trial.Event{At: at, Kind: trial.EvCrash, P: int32(p)})
}

// Restart runs member p again on its data directory.
func (in sysInjector) Restart(p int) {
	st := in.st
	if st.alive[p] {
		return
	}
	if err := st.c.Restart(p); err != nil {
		st.errs = append(st.errs, err.Error())
		return
	}
	st.alive[p] = true
	st.add(trial.Event{At: st.now(), Kind: trial.EvRestart, P: int32(p)})
}

// Pause stops member p (SIGSTOP); Resume continues it (SIGCONT).
func (in sysInjector) Pause(p int) {
	st := in.st
	if !st.alive[p] || st.paused[p] {
		return
	}
	st.c.Pause(p)
	st.paused[p] = true
	st.add(trial.Event{At: st.now(), Kind: trial.EvPause, P: int32(p)})
}

func (in sysInjector) Resume(p int) {
	st := in.st
	if !st.paused[p] {
		return
	}
	st.c.Resume(p)
	st.paused[p] = false
	st.add(trial.Event{At: st.now(), Kind: trial.EvResume, P: int32(p)})
}

// Suspect has no effect: a server's failure detection is its own.
func (in sysInjector) Suspect(observer, q int) {}

// Note records a start or heal in the schedule (and, traced, the trace).
func (in sysInjector) Note(what string, traced bool) {
	st := in.st
	if traced {
		st.add(trial.Event{At: st.now(), Kind: trial.EvFault, What: what})
		return
	}
	st.untraced = append(st.untraced, trial.FaultEvent{At: st.now(), What: what})
}

// Cut drops every packet on the links of l.
func (in sysInjector) Cut(l trial.LinkEffect) { in.shape(l, 100) }

// Lose drops a random share p.P of the packets on the links of l.
func (in sysInjector) Lose(l trial.LinkEffect, p trial.Loss) { in.shape(l, int(p.P*100+0.5)) }

// shape puts percent% loss on every link l affects.
func (in sysInjector) shape(l trial.LinkEffect, percent int) {
	st := in.st
	var links [][2]int
	for from := range st.n {
		for to := range st.n {
			if from != to && l.Affects(st.cfg.Seed, from, to) {
				links = append(links, [2]int{from, to})
			}
		}
	}
	st.effects[l.ID] = links
	for _, k := range links {
		if err := st.c.Loss(k[0], k[1], percent); err != nil {
			st.errs = append(st.errs, err.Error())
		}
	}
}

// Heal removes link effect id's rules.
func (in sysInjector) Heal(id int) {
	st := in.st
	for _, k := range st.effects[id] {
		if err := st.c.Loss(k[0], k[1], 0); err != nil {
			st.errs = append(st.errs, err.Error())
		}
	}
	delete(st.effects, id)
}
