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
// row must not depend on the host's load. The program is charged the wall
// time of its step less the time it waited on a run queue for a CPU
// (Linux's run_delay, /proc/PID/task/TID/schedstat): computing, sleeping
// and blocking are charged, being starved is not. A step's start reads
// its own task's run_delay (one pread of a file kept open); the rest is
// looked at every poll (budgetPoll), which a step that ends sooner, nearly
// every one, never reaches.
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
	// wall is the step's wall time at the last poll, waited the most one
	// of the program's tasks had then waited on a run queue since the
	// step's start (runQueue), when sched says that schedstat was read.
	wall, waited time.Duration
	sched        bool
	// fromZero says that a task first seen at a poll began in the step,
	// or that the program did (its first step, init): all its waits are
	// the step's.
	fromZero bool
	tasks    map[int]taskSched // its tasks' schedstat at the last poll
	graced   bool              // its unread output has been read once past the budget
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
	*b = budget{init: init, limit: p.timeout, from: now, tasks: tasks, gen: interrupts.Load(), fromZero: !p.begun}
	if init {
		b.limit = initTimeouts * p.timeout
	}
	// The baseline of the program's own task, one read of a file kept
	// open (its other tasks', at the first poll): a poll the host holds
	// late must not charge the waits before it.
	if p.begun {
		if p.sched == nil {
			p.sched = openSched(p.cmd.Process.Pid)
		}
		if t, ok := readSched(p.sched); ok {
			t.base = t.delay
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
	waited, waiting, sched := runQueue(p.cmd.Process.Pid, b.tasks, b.fromZero)
	b.wall, b.waited, b.sched = now.Sub(b.from), waited, sched
	b.fromZero = true // a task first seen at a later poll began since
	// A task on a run queue that has not run since the last poll holds a
	// wait the kernel has not counted yet: the program is judged later.
	over := b.charged() >= b.limit && !waiting
	// The harness's own lateness is not the program's: its poll comes when
	// the harness is scheduled, after the program may have ended its step
	// in time. What the program wrote before this poll is read before it
	// is judged, once.
	judged := over && (b.graced || unread(p.out) == 0)
	switch {
	case judged && b.init:
		return fmt.Errorf("%w: did not answer init within %d step timeouts (%v)%s", errStartup, initTimeouts, b.limit, b.spent())
	case judged:
		return errTimeout
	case b.wall >= wallLimit:
		return fmt.Errorf("%w: did not end %s within %v of wall time%s: the host did not run it", nodes.ErrInfrastructure, b.what(), wallLimit, b.spent())
	}
	b.graced = b.graced || over
	next := p.budgetPoll()
	if b.charged() < b.limit {
		next = min(next, b.limit-b.charged())
	}
	p.out.SetReadDeadline(now.Add(next))
	return nil
}

// charged is the time charged to the program so far (charge).
func (b *budget) charged() time.Duration { return charge(b.wall, b.waited) }

// charge is what a step costs the program: its wall time less the time it
// waited for a CPU, never less than nothing.
func charge(wall, waited time.Duration) time.Duration { return max(0, wall-waited) }

func (b *budget) what() string {
	if b.init {
		return "init"
	}
	return "its step"
}

// spent says what the step was charged, for an error: the time it had,
// and the time it waited for a CPU, or that the latter is unknown.
func (b *budget) spent() string {
	if !b.sched {
		return fmt.Sprintf(": %v of wall time (the time it waited for a CPU is unknown here)", b.wall.Round(time.Millisecond))
	}
	return fmt.Sprintf(": charged %v (%v of wall time less %v waiting for a CPU)", b.charged().Round(time.Millisecond), b.wall.Round(time.Millisecond), b.waited.Round(time.Millisecond))
}
