package sim

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/nodes/trial/timeline"
)

// view is the simulator's trial.View: the world as a fault sees it when
// it starts.
type view struct{ s *sim }

// N is the number of processes.
func (v view) N() int { return v.s.n }

// Rank is the rank of position p.
func (v view) Rank(p int) nodes.Rank { return v.s.ranks.At(p) }

// Alive reports whether p has not crashed (or has restarted since).
func (v view) Alive(p int) bool { return v.s.alive[p] }

// Leader is the position of the leader named by the latest decision, or -1
// if nobody has decided.
func (v view) Leader() int {
	if v.s.lastDecided < 0 {
		return -1
	}
	p, ok := v.s.position(v.s.res.Decisions.Get(int(v.s.lastDecided)).Leader)
	if !ok {
		return -1
	}
	return p
}

// Initiators are the positions the workload told to initiate at time 0;
// every position for algorithms in which everyone initiates.
func (v view) Initiators() []int {
	if v.s.cfg.Algorithm.StartsAll {
		return trial.AllPositions(v.s.n)
	}
	return v.s.cfg.Initiators
}

// Rand is the fault stream: seeded by the trial's seed, apart from every
// other source, so faults never change the draws of fault-free runs.
func (v view) Rand() *rand.Rand { return v.s.faultRand() }

// Now is the virtual time.
func (v view) Now() time.Duration { return time.Duration(v.s.now) }

// activeLink is a link effect in force: the fault's effect with its
// parameters, and what the simulator keeps for it.
type activeLink struct {
	eff  trial.Shaping
	l    trial.LinkEffect
	busy map[uint64]int64 // trial.Bandwidth: when each link is free again
	sent map[uint64]int64 // trial.DataLimit: bytes each link carried
}

// held is an event withheld from a paused process until it resumes.
// served marks a step of a slow process whose service ended during the
// pause: it is handled at the resumption without a new service.
type held struct {
	p      payload
	ord    uint64
	bg     bool
	served bool
}

func (s *sim) faultRand() *rand.Rand {
	if s.fr == nil {
		s.fr = trial.FaultRand(s.cfg.Seed)
	}
	return s.fr
}

// initFaults prepares the fault timeline: what it needs of the run, and
// whether this runtime can apply every fault.
func (s *sim) initFaults() error {
	tl, err := timeline.New(s.cfg.Faults)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if tl == nil {
		return nil
	}
	if err := tl.Check(view{s}); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	s.tl = tl
	need := tl.Needs()
	if need.Reorder {
		s.fifoMode = false
	}
	if need.Pause {
		s.paused = make([]bool, s.n)
		s.held = make([][]held, s.n)
	}
	if need.Slow {
		s.slow = &slowProcs{service: make([]int64, s.n), free: make([]int64, s.n), by: map[[2]int]int64{}, served: map[uint64]bool{}}
	}
	s.faulty = need.Links
	return nil
}

// The simulator is the timeline's trial.Injector (view): faults act on it
// as events at their instants.

// At runs f at time at as a control event.
func (v view) At(at time.Duration, f func()) {
	s := v.s
	if s.actions == nil {
		s.actions = s.spare.kept.actions
	}
	s.actions = append(s.actions, f)
	s.schedule(int64(at), classControl, payload{kind: evFault, gen: uint32(len(s.actions) - 1)})
}

func (v view) Crash(p int, atStart, undetected bool) { v.s.crash(int32(p), atStart, undetected) }
func (v view) Restart(p int)                         { v.s.restart(int32(p)) }
func (v view) Pause(p int)                           { v.s.pause(int32(p)) }
func (v view) Resume(p int)                          { v.s.resume(int32(p)) }

// Slow makes p's every step cost service more (trial.Slower), on top of
// any other slow fault in force on it; Fast takes fault id's service off.
// The events p queued meanwhile are still handled when their steps
// complete.
func (v view) Slow(p, id int, service time.Duration) {
	sp := v.s.slow
	sp.service[p] += int64(service)
	sp.by[[2]int{p, id}] = int64(service)
}

func (v view) Fast(p, id int) {
	sp := v.s.slow
	sp.service[p] -= sp.by[[2]int{p, id}]
	delete(sp.by, [2]int{p, id})
}

// Suspect makes observer's detector suspect q, as a control event now.
func (v view) Suspect(observer, q int) {
	v.s.scheduleSuspect(v.s.now, classControl, int32(observer), int32(q))
}

// Note records a start or heal in the schedule, and traces it.
func (v view) Note(what string, traced bool) {
	s := v.s
	s.res.Faults = append(s.res.Faults, trial.FaultEvent{At: time.Duration(s.now), What: what})
	if traced && s.want.Has(trial.EvFault) {
		s.emit(&trial.Event{At: time.Duration(s.now), Kind: trial.EvFault, What: what})
	}
}

// link puts a link effect in force.
func (v view) link(l trial.LinkEffect, a activeLink) *activeLink {
	a.l = l
	v.s.links = append(v.s.links, &a)
	return &a
}

// Heal ends link effect id.
func (v view) Heal(id int) {
	s := v.s
	for k, a := range s.links {
		if a.l.ID == id {
			s.links = append(s.links[:k], s.links[k+1:]...)
			return
		}
	}
}

func (v view) Cut(l trial.LinkEffect)                            { v.link(l, activeLink{eff: trial.Cut{}}) }
func (v view) Delay(l trial.LinkEffect, p trial.Delay)           { v.link(l, activeLink{eff: p}) }
func (v view) Lose(l trial.LinkEffect, p trial.Loss)             { v.link(l, activeLink{eff: p}) }
func (v view) Slice(l trial.LinkEffect, p trial.Slice)           { v.link(l, activeLink{eff: p}) }
func (v view) Reorder(l trial.LinkEffect, p trial.Reordering)    { v.link(l, activeLink{eff: p}) }
func (v view) Relatency(l trial.LinkEffect, p trial.LinkModel)   { v.link(l, activeLink{eff: p}) }
func (v view) Duplicate(l trial.LinkEffect, p trial.Duplication) { v.link(l, activeLink{eff: p}) }
func (v view) Throttle(l trial.LinkEffect, p trial.Bandwidth) {
	v.link(l, activeLink{eff: p, busy: map[uint64]int64{}})
}
func (v view) Limit(l trial.LinkEffect, p trial.DataLimit) {
	v.link(l, activeLink{eff: p, sent: map[uint64]int64{}})
}

// Blackhole stops all data: at the message level, a cut. Closing the
// connection after a timeout changes nothing there.
func (v view) Blackhole(l trial.LinkEffect, _ trial.Blackhole) { v.Cut(l) }

// Reset cuts the links Timeout after the fault starts: a reset connection
// loses its buffers (the live link layer reconnects, and the reset repeats
// while the toxic holds).
func (v view) Reset(l trial.LinkEffect, p trial.Reset) {
	if p.Timeout <= 0 {
		v.Cut(l)
		return
	}
	s := v.s
	a := &activeLink{eff: trial.Mark{}, l: l}
	s.links = append(s.links, a) // inert until the reset: Heal before it removes it
	v.At(time.Duration(s.now)+p.Timeout, func() { a.eff = trial.Cut{} })
}

// SlowClose has no effect: simulated links never close.
func (v view) SlowClose(l trial.LinkEffect, _ trial.SlowClose) {
	v.link(l, activeLink{eff: trial.Mark{}})
}

// affects reports whether active link effect a applies to the link
// from→to: in its set, and chosen by its toxicity.
func (s *sim) affects(a *activeLink, from, to int32) bool {
	return a.l.Affects(s.cfg.Seed, int(from), int(to))
}

// sendFaulty is send's tail in a run with faults.
func (s *sim) sendFaulty(from, to int32, m *nodes.Message, size int64) {
	s.seq++
	ord := order(classDeliver, s.seq)
	if s.want.Has(trial.EvSend) && s.wantsSend(m.Kind) {
		s.emitMsg(trial.EvSend, ord, from, to, m)
	}
	s.route(from, to, m, ord, size)
}

// route sends a message through the active link effects: it may be lost,
// delayed, duplicated or allowed to overtake. Only runs with faults get
// here; the fault-free path in send is unchanged.
func (s *sim) route(from, to int32, m *nodes.Message, ord uint64, size int64) {
	var extra int64
	lost, dup, overtake := false, false, false
	var model trial.Latency
	for _, a := range s.links {
		if !s.affects(a, from, to) {
			continue
		}
		link := uint64(from)<<32 | uint64(uint32(to))
		switch e := a.eff.(type) {
		case trial.Cut:
			lost = true
		case trial.Loss:
			if s.faultRand().Float64() < e.P {
				lost = true
			}
		case trial.Delay:
			d := int64(e.Latency)
			if e.Jitter > 0 {
				d += s.faultRand().Int64N(2*int64(e.Jitter)+1) - int64(e.Jitter)
			}
			extra += max(d, 0)
		case trial.Bandwidth:
			start := max(s.now, a.busy[link])
			done := start + size*int64(time.Second)/e.Rate
			a.busy[link] = done
			extra += done - s.now
		case trial.Slice:
			slices := int64(0)
			for left := size; left > 0; slices++ {
				sz := e.Size
				if e.Variation > 0 {
					sz += s.faultRand().Int64N(2*e.Variation+1) - e.Variation
				}
				left -= sz
			}
			extra += max(slices-1, 0) * int64(e.Delay)
		case trial.Duplication:
			if s.faultRand().Float64() < e.P {
				dup = true
			}
		case trial.Reordering:
			if s.faultRand().Float64() < e.P {
				overtake = true
				extra += s.faultRand().Int64N(int64(e.Hold) + 1)
			}
		case trial.DataLimit:
			a.sent[link] += size
			if a.sent[link] > e.Bytes {
				lost = true
			}
		case trial.LinkModel:
			model = e.Model
		}
	}
	if lost {
		s.lose(from, to, ord, m)
		return
	}
	if !s.background(m.Kind) {
		s.core++
	}
	var lat int64
	if model != nil {
		lat = int64(model.Sample(s.faultRand()))
	} else {
		lat = int64(s.cfg.Latency.Sample(s.net))
	}
	at := s.now + lat + extra
	if s.fifoMode {
		// Only cuts, loss and data limits are active: every message still
		// takes exactly T, so the FIFO queue stays ordered.
		s.fifoPut(at, ord, to, from, m)
		s.res.Delayed(m.Kind, time.Duration(at-s.now))
		return
	}
	if !overtake {
		at = s.fifoAt(from, to, at)
	}
	s.res.Delayed(m.Kind, time.Duration(at-s.now))
	s.pushDelivery(at, ord, to, from, m)
	if dup {
		if !s.background(m.Kind) {
			s.core++
		}
		s.seq++
		dord := order(classDeliver, s.seq)
		s.res.Duplicated++
		if s.want.Has(trial.EvDup) {
			s.emitMsg(trial.EvDup, dord, from, to, m)
		}
		s.pushDelivery(s.fifoAt(from, to, at), dord, to, from, m)
	}
}

func (s *sim) pushDelivery(at int64, ord uint64, to, from int32, m *nodes.Message) {
	slot, p := s.slab.alloc()
	p.kind, p.to, p.from = evDeliver, to, from
	s.pack(p, m, from, to)
	s.heap.push(entry{at: at, ord: ord, slot: slot, to: to})
}

func (s *sim) lose(from, to int32, ord uint64, m *nodes.Message) {
	s.res.Lost++
	if s.want.Has(trial.EvLose) {
		s.emitMsg(trial.EvLose, ord, from, to, m)
	}
}

// intercept runs at a delivery in a run with faults: a paused receiver's
// messages wait for it; a message arriving over a cut link is lost (a
// partition drops what is in flight). It reports whether it took the message.
func (s *sim) intercept(to, from int32, ord uint64, m *nodes.Message) bool {
	if s.paused != nil && s.paused[to] {
		p := payload{kind: evDeliver, to: to, from: from}
		s.pack(&p, m, from, to)
		s.hold(to, p, ord, s.background(m.Kind), false)
		return true
	}
	for _, a := range s.links {
		if _, cut := a.eff.(trial.Cut); cut && s.affects(a, from, to) {
			s.lose(from, to, ord, m)
			return true
		}
	}
	return false
}

// hold keeps an event of a paused process for its resumption.
func (s *sim) hold(p int32, ev payload, ord uint64, bg, served bool) {
	s.held[p] = append(s.held[p], held{p: ev, ord: ord, bg: bg, served: served})
}

func (s *sim) pause(p int32) {
	if s.paused[p] {
		return
	}
	s.paused[p] = true
	s.emitProc(trial.EvPause, p)
}

// resume releases what a paused process missed, at this instant and in the
// order it arrived: its messages, then its overdue timers. A slow process
// (slowProcs) resumes as a live node does after SIGCONT: the steps whose
// service ended during the pause are handled now, in the order they were
// queued, those still in service at their times, and what arrived during
// the pause then enters its queue behind them, in arrival order, each
// step with one whole service.
func (s *sim) resume(p int32) {
	if !s.paused[p] {
		return
	}
	s.paused[p] = false
	s.emitProc(trial.EvResume, p)
	evs := s.held[p]
	s.held[p] = nil
	slow := s.slow != nil && s.slow.service[p] > 0
	for _, h := range evs {
		if !h.bg {
			s.core++
		}
		slot, ev := s.slab.alloc()
		*ev = h.p
		switch {
		case slow && h.served:
			// A fresh sequence number keeps the queue's order among them.
			s.seq++
			ord := order(h.ord>>56, s.seq)
			s.slow.served[ord] = true
			s.heap.push(entry{at: s.now, ord: ord, slot: slot, to: p})
		case slow && !h.bg:
			s.queue(p, slot, h.ord)
		default:
			s.heap.push(entry{at: s.now, ord: h.ord, slot: slot, to: h.p.to})
		}
	}
}

// restart brings a crashed process back as a fresh machine with the same
// rank: it knows no leader, its old timers are void, and it boots again,
// with only what it saved through nodes.StableStore.
// Messages that arrived while it was down were lost; those still in flight
// reach the new machine.
func (s *sim) restart(p int32) {
	if s.alive[p] {
		return
	}
	s.alive[p] = true
	for k, st := range s.timers {
		if int32(k>>16) == p && st.armed {
			st.gen++
			st.armed = false
			s.timers[k] = st
		}
	}
	for t := range nodes.TimerID(s.timerW) {
		if st := s.timer(p, t); st.armed {
			st.gen++
			st.armed = false
			s.putTimer(p, t, st)
		}
	}
	if s.closing {
		s.machines.at(p).(io.Closer).Close()
	}
	s.machines.set(p, s.newMachine())
	s.res.Restarted(int(p))
	s.electionEvent()
	s.emitProc(trial.EvRestart, p)
	if s.hb != nil {
		s.incarnation[p]++
		n := int32(s.n)
		for q := range n {
			s.hb.lastHeard[p*n+q] = s.now
			s.hb.suspected[p*n+q] = false
		}
		s.scheduleBackground(s.now, payload{kind: evHeartbeat, to: p, gen: s.incarnation[p]})
	}
	s.machines.at(p).Start(s.enter(p))
	s.leave()
	s.started(p)
	s.afterEvent(p)
}

// slowProcs are the slow faults in force (trial.EffSlow): each slow
// process is a single server whose every step takes its service time.
type slowProcs struct {
	service []int64          // by position: the extra service time of each step, ns (0: not slow)
	free    []int64          // by position: when its server has finished the steps queued
	by      map[[2]int]int64 // the service each fault in force adds, by position and fault
	// served marks the queue entries of steps whose service is done:
	// handled when popped, not queued again. They are marked by order,
	// which no two pending events share, not by slab slot, which the
	// wheel does not keep from an event's push to its pop.
	served map[uint64]bool
}

// queue puts the event in slab slot slot, ordered ord, of process p in
// p's server: it is handled when the steps before it and its own service
// are done.
func (s *sim) queue(p int32, slot int32, ord uint64) {
	sp := s.slow
	done := max(s.now, sp.free[p]) + sp.service[p]
	sp.free[p] = done
	sp.served[ord] = true
	s.heap.push(entry{at: done, ord: ord, slot: slot, to: p})
}

// slowed reports whether heap event e (a delivery, a timer, an initiation
// or a suspicion) is a step of a slow process not yet served: it is then
// queued in the process's server instead of handled now. Detector traffic
// is not a step: a slow process keeps heartbeating.
//
// A paused process takes no new step into its queue (its events are held
// unserved, as a stopped node reads nothing), and a delivery whose service
// ends while it is paused is held as served (resume); its other steps are
// held by the loop.
func (s *sim) slowed(e entry, p *payload) bool {
	sp := s.slow
	paused := s.paused != nil && s.paused[p.to]
	if sp.served[e.ord] {
		delete(sp.served, e.ord)
		if !paused {
			return false
		}
		s.popped()
		s.hold(p.to, *p, e.ord, false, true)
		s.slab.release(e.slot)
		return true
	}
	if paused || sp.service[p.to] <= 0 || p.kind == evDeliver && s.background(nodes.Kind(p.sub)) {
		return false
	}
	s.queue(p.to, e.slot, e.ord)
	return true
}

// slowDelivery queues a delivery of the FIFO queue to a slow process in
// its server (the heap takes it from there); it reports whether it did.
func (s *sim) slowDelivery(d *delivery) bool {
	if !s.slowsDelivery(d.to, d.msg.Kind) {
		return false
	}
	slot, p := s.slab.alloc()
	p.kind, p.to, p.from = evDeliver, d.to, d.from
	s.pack(p, &d.msg, d.from, d.to)
	s.queue(d.to, slot, d.ord)
	return true
}

// slowPacked is slowDelivery for a packed delivery, whose payload is the
// slab's already.
func (s *sim) slowPacked(d *packedDelivery) bool {
	if !s.slowsDelivery(d.p.to, nodes.Kind(d.p.sub)) {
		return false
	}
	slot, p := s.slab.alloc()
	*p = d.p
	s.queue(d.p.to, slot, d.ord)
	return true
}

// slowsDelivery reports whether a delivery of kind k to process `to` from
// the FIFO queue waits in to's server: to is slow, not paused, and k is
// not background traffic.
func (s *sim) slowsDelivery(to int32, k nodes.Kind) bool {
	return s.slow.service[to] > 0 && !s.background(k) && (s.paused == nil || !s.paused[to])
}
