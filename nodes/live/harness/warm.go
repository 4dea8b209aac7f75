package harness

import (
	"os"
	"time"

	"github.com/electbench/electbench/nodes/live"
)

// warm is what a kept cluster keeps of its node processes after a clean
// trial: the processes themselves, each with its identity, its listener
// and its links up (the node's reset), for the cluster's next trial. That
// trial spawns nothing and shakes no hands: its set-up is a configure per
// node, which gives each its new position, and the links it finds up. At
// N = 64 a new set-up is 64 processes and 4,032 authenticated handshakes,
// seconds of CPU on a small host.
//
// What a trial sees is unchanged: the nodes start from nothing (no
// machine, timer, count or stable state survives a reset), every proxy is
// put back as created (Runtime.reset), and a message of the last trial
// still in flight is stale in the next (an EPOCH frame marks each link's
// trial), dropped and never delivered. The identities stay: a cluster's
// trials rank the same minted identities, arranged as each trial's ranks
// say.
//
// Only a clean trial leaves its processes warm (keepable); after any other
// the processes are stopped and the next trial starts new ones, as does a
// trial that wants something the kept ones cannot give (warmable).
type warm struct {
	procs *procs
	dir   string // the identities' directory, the cluster's while it is warm
	epoch uint64 // the last trial's (live.Config.Epoch)
}

// stop kills the kept processes, waits for their readers and removes
// their directory.
func (w *warm) stop() {
	w.procs.release()
	os.RemoveAll(w.dir)
}

// stopWarm stops the cluster's kept processes, if any.
func (k *kept) stopWarm() {
	if k != nil && k.warm != nil {
		k.warm.stop()
		k.warm = nil
	}
}

// warmable reports whether the trial can run on kept processes: not when
// a node is to show a forged identity, nor for a program in any language,
// whose process is started for each trial.
func (lt *liveTrial) warmable() bool {
	return len(lt.r.opt.Forge) == 0 && lt.cfg.Algorithm.External == nil
}

// takeWarm gives the trial the cluster's kept processes, when there are
// and it can run on them, and reports whether it did. Kept processes it
// does not take are stopped.
func (lt *liveTrial) takeWarm() bool {
	k := lt.r.kept
	w := k.warm
	if w == nil {
		return false
	}
	k.warm = nil
	if !lt.warmable() {
		w.stop()
		return false
	}
	for _, p := range w.procs.all {
		select {
		case <-p.exited:
			lt.logf("a kept node process (%d) has exited: starting new ones", p.idx)
			w.stop()
			return false
		default:
		}
	}
	// Anything a node said after its reset (a connection it refused) is
	// the last trial's business.
	for drained := false; !drained; {
		select {
		case <-w.procs.reports:
		default:
			drained = true
		}
	}
	for _, p := range w.procs.all {
		p.pos, p.linked, p.stopped = -1, false, false
	}
	lt.procs, lt.dir, lt.epoch = w.procs, w.dir, w.epoch+1
	return true
}

// keepable reports whether the trial leaves its processes fit for the
// next: it ran to its end without a failure or an interruption, and every
// process it started is running, unpaused, as itself.
func (lt *liveTrial) keepable() bool {
	if lt.ctx.Err() != nil || len(lt.errs) > 0 || !lt.started || lt.r.kept == nil || lt.r.srv.down() != nil ||
		!lt.warmable() || len(lt.procs.all) != lt.n {
		return false
	}
	for pos, p := range lt.procs.byPos {
		if p == nil || p.killed || !lt.alive[pos] || lt.paused[pos] || lt.refused[pos] || p.unproven != nil {
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
		lt.send(p, live.Command{Type: "reset"})
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
