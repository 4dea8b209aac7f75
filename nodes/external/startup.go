package external

import (
	"errors"
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// The init step includes the program's start-up (an interpreter's boot),
// whose wall time a busy host stretches without bound: forty interpreters
// started side by side on two loaded cores took over 30 s. So init is not
// timed by the wall clock but by what the program does (NODE-PROTOCOL.md,
// "Start-up"), polled every initPoll:
//
//   - it may use initCPUTimeouts step timeouts of CPU time (its process
//     group's, children reaped included) before init_ok: a program busy
//     for that long computes instead of starting. A busy host slows the
//     program's CPU time no faster than its work.
//   - it may wait one step timeout without using CPU while none of its
//     processes is runnable: a program blocked (on a read, a lock, a
//     sleep) does not start by itself. A starved program is runnable.
//   - initWallLimit bounds the whole in wall time, for a host that does
//     not run the program at all: the trial is then an infrastructure
//     failure (nodes.ErrInfrastructure), no result.
//
// Without /proc the CPU time is unknown, and init has initCPUTimeouts
// step timeouts of wall time, as before.
const (
	initCPUTimeouts = 3
	initWallLimit   = 10 * time.Minute
)

// errStartup is an init step that went past its budget.
var errStartup = errors.New("start-up")

// initPoll is how often the init step's budget is looked at.
func (p *process) initPoll() time.Duration { return min(time.Second, p.timeout) }

// startInit arms the init step's budget. A fresh program's start-up is
// part of its init; a kept one's earlier trials are not, hence the
// baseline (its own CPU time: the pass over /proc that finds its group
// is left to the polls, which few inits reach).
func (p *process) startInit(kept bool) {
	p.initFrom = time.Now()
	p.initBase = 0
	if kept {
		p.initBase, _, _ = ownUsage(p.cmd.Process.Pid)
	}
	p.initLast, p.initIdle = p.initBase, 0
	p.out.SetReadDeadline(p.initFrom.Add(p.initPoll()))
}

// initMore is called each time initPoll passes without init_ok: nil if the
// program is within its budget (the next poll is armed), otherwise an
// error wrapping errStartup that says which bound it passed.
func (p *process) initMore() error {
	wall := time.Since(p.initFrom)
	cpu, busy, ok := groupUsage(p.cmd.Process.Pid)
	switch {
	case !ok && wall >= initCPUTimeouts*p.timeout:
		return fmt.Errorf("%w: did not answer init within %d step timeouts (%v)", errStartup, initCPUTimeouts, initCPUTimeouts*p.timeout)
	case ok && cpu-p.initBase >= initCPUTimeouts*p.timeout:
		return fmt.Errorf("%w: used %v of CPU without answering init (at most %d step timeouts, %v)", errStartup, (cpu - p.initBase).Round(time.Millisecond), initCPUTimeouts, initCPUTimeouts*p.timeout)
	case wall >= initWallLimit:
		return fmt.Errorf("%w: %w: did not answer init within %v of wall time, having used %v of CPU: the host did not run it", errStartup, nodes.ErrInfrastructure, initWallLimit, (cpu - p.initBase).Round(time.Millisecond))
	}
	if ok && cpu == p.initLast && !busy {
		p.initIdle += p.initPoll()
		if p.initIdle >= p.timeout {
			return fmt.Errorf("%w: did not answer init, waiting %v without using CPU (at most a step timeout, %v)", errStartup, p.initIdle, p.timeout)
		}
	} else {
		p.initIdle = 0
	}
	p.initLast = cpu
	p.out.SetReadDeadline(time.Now().Add(p.initPoll()))
	return nil
}
