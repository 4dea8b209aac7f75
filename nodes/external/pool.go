package external

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A program that declares "reuse" in its init_ok and ends its trial
// between steps is kept, idle, for a later trial of the same spec, which
// gives it a fresh init instead of starting another process
// (NODE-PROTOCOL.md, "Kept across trials"): an interpreter's start-up
// (tens of milliseconds of CPU each, forty of them a trial) is then paid
// once per node a run, not once per node a trial.
var idle = struct {
	sync.Mutex
	procs map[string][]*process // by poolKey
}{procs: map[string][]*process{}}

// spawned counts the programs started, for tests that check reuse.
var spawned atomic.Int64

// idleLimit is how long a kept program waits for its next trial before it
// is stopped: a run's next trial takes it at once, so only a run that has
// ended (or a process that no longer runs trials of the spec) leaves one
// waiting that long. StopIdle stops them at once.
const idleLimit = 5 * time.Second

// poolKey says which kept programs a spec may take: the same program,
// started the same way, with the same step timeout.
func (s Spec) poolKey() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d", s.Name, strings.Join(s.Command, "\x00"), s.Dir, s.timeout())
}

// takeIdle returns a kept program of the spec, or nil: one that has ended
// since it was kept is stopped and passed over.
func takeIdle(key string) *process {
	idle.Lock()
	defer idle.Unlock()
	for ps := idle.procs[key]; len(ps) > 0; ps = idle.procs[key] {
		p := ps[len(ps)-1]
		idle.procs[key] = ps[:len(ps)-1]
		// Out of the list, it is ours: a timer that fires now finds it
		// gone and leaves it.
		p.idleTimer.Stop()
		select {
		case <-p.exited:
			go p.stop(time.Now()) // reaped already: only its pipes to close
			continue
		default:
		}
		return p
	}
	return nil
}

// keepIdle keeps p for a later trial, for at most idleLimit.
func keepIdle(key string, p *process) {
	idle.Lock()
	defer idle.Unlock()
	idle.procs[key] = append(idle.procs[key], p)
	p.idleTimer = time.AfterFunc(idleLimit, func() {
		if dropIdle(key, p) {
			p.stop(time.Now().Add(stopGrace))
		}
	})
}

// dropIdle takes p out of the kept programs, and reports whether it was
// there.
func dropIdle(key string, p *process) bool {
	idle.Lock()
	defer idle.Unlock()
	ps := idle.procs[key]
	for i, q := range ps {
		if q == p {
			idle.procs[key] = append(ps[:i], ps[i+1:]...)
			return true
		}
	}
	return false
}

// StopIdle stops every kept program and returns once they are reaped: the
// command line calls it when its run ends, so that no program outlives it.
func StopIdle() {
	idle.Lock()
	var all []*process
	for key, ps := range idle.procs {
		for _, p := range ps {
			p.idleTimer.Stop()
			all = append(all, p)
		}
		delete(idle.procs, key)
	}
	idle.Unlock()
	deadline := time.Now().Add(stopGrace)
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Go(func() { p.stop(deadline) })
	}
	wg.Wait()
}
