package external

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
)

// A step, and the init step, is timed not by the wall clock but by the
// time the program had (NODE-PROTOCOL.md, "Step timeout and start-up"): a
// busy host stretches a step's wall time without bound (forty
// interpreters started side by side on two loaded cores took over 30 s to
// answer init; a step of a flood at load 60 passed 10 s), and a simulated
// row must not depend on the host's load. The program is charged its CPU
// time and the time it was blocked, by its own choice (sleeping, reading):
// from Linux's /proc/PID/task/TID/schedstat, each poll's interval less the
// time the program ran or waited on a run queue in it, when none of its
// tasks is runnable or in a disk wait at the poll and its output is all
// read (else the harness is behind). Waiting for a CPU is not charged, nor
// is time the host took otherwise (a VM's vCPU descheduled: at load 120 a
// Python start-up spent most of 40 s neither running nor on a run queue,
// and a charge of wall time less run-queue waits failed it). A step's
// start reads its own task's counters (one pread of a file kept open);
// the rest is looked at every poll (budgetPoll), which a step that ends
// sooner, nearly every one, never reaches.
//
//   - a step may be charged one step timeout, init initTimeouts of them
//     (init includes an interpreter's start-up);
//   - wallLimit bounds either in wall time, for a host that does not run
//     the program at all: the trial is then an infrastructure failure
//     (nodes.ErrInfrastructure), retried by --resume, never a row.
//
// Without schedstat (systems other than Linux) the charge is wall time.
const (
	initTimeouts = 3
	wallLimit    = 10 * time.Minute
)

// errStartup is an init step that went past its budget.
var errStartup = errors.New("start-up")

// interrupts counts the calls of Interrupt: a step begun before one ends
// at its next poll, whatever its budget.
var interrupts atomic.Int64

// budget is the time a step in progress may still be charged, and what it
// was charged so far.
type budget struct {
	init  bool          // the init step: errStartup, initTimeouts
	limit time.Duration // what it may be charged
	from  time.Time     // the step's start
	last  time.Time     // the last poll, or the start
	// cpu and blocked are what it was charged (its CPU time, the time it
	// was seen blocked), wall the step's wall time at the last poll;
	// sched says that schedstat was read there.
	cpu, blocked, wall time.Duration
	sched              bool
	// fromZero says that a task first seen at a poll began in the step,
	// or that the program did (its first step, init): all it did is the
	// step's.
	fromZero bool
	tasks    map[int]taskSched // its tasks' schedstat at the last poll
	gen      int64             // interrupts at the start
}

// budgetPoll is how often a step's budget is looked at: a tenth of it,
// at most a second.
func (p *process) budgetPoll() time.Duration {
	return max(min(time.Second, p.timeout/10), time.Millisecond)
}

// startBudget arms the budget of a step (init, with initTimeouts step
// timeouts, which include a fresh program's start-up).
func (p *process) startBudget(init bool) {
	b := &p.budget
	now := time.Now()
	tasks := b.tasks
	if tasks == nil {
		tasks = map[int]taskSched{}
	}
	clear(tasks)
	*b = budget{init: init, limit: p.timeout, from: now, last: now, tasks: tasks, gen: interrupts.Load(), fromZero: !p.begun}
	if init {
		b.limit = initTimeouts * p.timeout
	}
	// The baseline of the program's own task (its other tasks', at the
	// first poll): a poll the host holds late must not charge what the
	// program did before the step.
	if p.begun {
		if p.sched == nil {
			p.sched = openSched(p.cmd.Process.Pid)
		}
		if t, ok := readSched(p.sched); ok {
			tasks[p.cmd.Process.Pid] = t
		}
	}
	p.begun = true
	p.out.SetReadDeadline(now.Add(p.budgetPoll()))
}

// more is called each time a poll passes without the step's end: nil if
// the program is within its budget (the next poll is armed), otherwise an
// error wrapping errTimeout or errStartup (or nodes.ErrInfrastructure).
func (p *process) more() error {
	b := &p.budget
	now := time.Now()
	if interrupts.Load() != b.gen {
		return errTimeout
	}
	cpu, active, runnable, sched := activity(p.cmd.Process.Pid, b.tasks, b.fromZero)
	b.fromZero = true // a task first seen at a later poll began since
	interval := now.Sub(b.last)
	b.cpu += cpu
	switch {
	case !sched:
		b.blocked += interval
	case !runnable && unread(p.out) == 0:
		// Blocked by its own choice: what it did not run or wait for.
		// Output not yet read says the harness is behind, which a
		// program blocked on writing more must not be charged for.
		b.blocked += max(0, interval-active)
	}
	b.wall, b.sched, b.last = now.Sub(b.from), sched, now
	charged := b.cpu + b.blocked
	switch {
	case charged >= b.limit && b.init:
		return fmt.Errorf("%w: did not answer init within %d step timeouts (%v)%s", errStartup, initTimeouts, b.limit, b.spent())
	case charged >= b.limit:
		return errTimeout
	case b.wall >= wallLimit:
		return fmt.Errorf("%w: did not end %s within %v of wall time%s: the host did not run it", nodes.ErrInfrastructure, b.what(), wallLimit, b.spent())
	}
	p.out.SetReadDeadline(now.Add(min(p.budgetPoll(), b.limit-charged)))
	return nil
}

func (b *budget) what() string {
	if b.init {
		return "init"
	}
	return "its step"
}

// spent says what the step was charged, for an error: the time it had,
// or that only its wall time is known.
func (b *budget) spent() string {
	if !b.sched {
		return fmt.Sprintf(": %v of wall time (what the program did in it is unknown here)", b.wall.Round(time.Millisecond))
	}
	return fmt.Sprintf(": charged %v of CPU and %v blocked, in %v of wall time", b.cpu.Round(time.Millisecond), b.blocked.Round(time.Millisecond), b.wall.Round(time.Millisecond))
}
