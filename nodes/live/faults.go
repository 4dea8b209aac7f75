package live

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// faults are the harness's faults in force in this node, told over the
// control channel (lose, slow, heal): those the node applies itself
// because no proxy can. A loss fault loses messages on links out of this
// node in its link layer (TCP and Toxiproxy never lose one); a slow fault
// holds each step of the machine in a single-server queue (slowness of
// the process, not of a link, and not SIGSTOP: the node keeps answering
// detector pings and the harness). Only the node's goroutine touches them;
// a reset clears them.
type faults struct {
	loss []lossFault
	slow []slowFault
	// service is the slow faults' service time added up; held are the
	// steps waiting in the queue, each with when its service ends, and
	// free when the last of them ends.
	service time.Duration
	held    []heldStep
	free    time.Time
	timer   *time.Timer
	gen     uint64           // serve events of an earlier trial find another generation
	post    func(event) bool // to the node's goroutine
}

type lossFault struct {
	fault int
	to    []bool // by peer position
	p     float64
	rnd   *rand.Rand
}

type slowFault struct {
	fault   int
	service time.Duration
}

type heldStep struct {
	e    event
	done time.Time
}

// lose begins loss fault c on the links to c.Peers.
func (f *faults) lose(c Command) error {
	if c.P < 0 || c.P > 1 {
		return fmt.Errorf("live: lose with probability %g", c.P)
	}
	l := lossFault{fault: c.Fault, p: c.P, rnd: rand.New(rand.NewPCG(c.Seed, 0x6c6f7373))} // "loss"
	for _, q := range c.Peers {
		if q < 0 || q >= 1<<16 {
			return fmt.Errorf("live: lose on the link to peer %d", q)
		}
		if q >= len(l.to) {
			l.to = append(l.to, make([]bool, q+1-len(l.to))...)
		}
		l.to[q] = true
	}
	f.loss = append(f.loss, l)
	return nil
}

// slowDown begins slow fault c.
func (f *faults) slowDown(c Command) error {
	if c.Service < 0 {
		return fmt.Errorf("live: slow with a negative service time %v", c.Service)
	}
	f.slow = append(f.slow, slowFault{fault: c.Fault, service: c.Service})
	f.service += c.Service
	return nil
}

// heal ends fault id's loss or slowness; steps already held keep their
// place in the queue.
func (f *faults) heal(id int) {
	f.loss = slices.DeleteFunc(f.loss, func(l lossFault) bool { return l.fault == id })
	f.slow = slices.DeleteFunc(f.slow, func(s slowFault) bool {
		if s.fault == id {
			f.service -= s.service
		}
		return s.fault == id
	})
}

// lost draws whether a message to peer to is lost: every loss fault on
// the link draws from its own stream, in the order this node sends, so
// that each fault's draws repeat for a seed as far as the sends do.
func (f *faults) lost(to int) bool {
	lost := false
	for i := range f.loss {
		if l := &f.loss[i]; to < len(l.to) && l.to[to] && l.rnd.Float64() < l.p {
			lost = true
		}
	}
	return lost
}

// hold queues step e while a slow fault is in force, reporting whether it
// did: it is handled when the steps before it and its own service are
// done (serve), as a single server does.
func (f *faults) hold(e event) bool {
	if f.service <= 0 {
		return false
	}
	now := time.Now()
	start := f.free
	if start.Before(now) {
		start = now
	}
	f.free = start.Add(f.service)
	f.held = append(f.held, heldStep{e: e, done: f.free})
	if len(f.held) == 1 {
		f.arm(now)
	}
	return true
}

// arm sets the timer for the first held step's end.
func (f *faults) arm(now time.Time) {
	gen := f.gen
	f.timer = time.AfterFunc(f.held[0].done.Sub(now), func() { f.post(event{kind: evServe, gen: gen}) })
}

// next takes the held step whose service has ended (a serve event of
// generation gen), if any, and arms the timer for the one after it.
func (f *faults) next(gen uint64) (event, bool) {
	if gen != f.gen || len(f.held) == 0 {
		return event{}, false
	}
	e := f.held[0].e
	f.held = f.held[1:]
	if len(f.held) > 0 {
		f.arm(time.Now())
	}
	return e, true
}

// reset clears every fault and held step for the next trial.
func (f *faults) reset() {
	if f.timer != nil {
		f.timer.Stop()
	}
	f.gen++
	f.loss, f.slow, f.held, f.service, f.free, f.timer = nil, nil, nil, 0, time.Time{}, nil
}
