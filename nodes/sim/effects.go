package sim

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// view is the simulator's trial.View: the world as a fault sees it when
// it starts.
type view struct{ s *sim }

// N is the number of processes.
func (v view) N() int { return v.s.n }

// Rank is the rank of position p.
func (v view) Rank(p int) nodes.Rank { return v.s.ranks[p] }

// Alive reports whether p has not crashed (or has restarted since).
func (v view) Alive(p int) bool { return v.s.procs[p].alive }

// Leader is the position of the leader named by the latest decision, or -1
// if nobody has decided.
func (v view) Leader() int {
	if v.s.lastDecided < 0 {
		return -1
	}
	p, ok := v.s.position(v.s.res.Decisions[v.s.lastDecided].Leader)
	if !ok {
		return -1
	}
	return p
}

// Initiators are the positions the workload told to initiate at time 0;
// every position for algorithms in which everyone initiates.
func (v view) Initiators() []int {
	if v.s.cfg.Algorithm.StartsAll {
		return allPositions(v.s.n)
	}
	return v.s.cfg.Initiators
}

// Rand is the fault stream: seeded by the trial's seed, apart from every
// other source, so faults never change the draws of fault-free runs.
func (v view) Rand() *rand.Rand { return v.s.faultRand() }

// Now is the virtual time.
func (v view) Now() time.Duration { return time.Duration(v.s.now) }

func allPositions(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// fault states
const (
	fsPending uint8 = iota
	fsActive
	fsDone
)

// faultState is the runtime state of one fault.
type faultState struct {
	state   uint8
	targets []int       // resolved process targets
	link    *activeLink // for link effects, while active
}

// activeLink is a link effect in force.
type activeLink struct {
	f     *trial.Fault
	index int
	has   func(from, to int) bool
	busy  map[uint64]int64 // EffBandwidth: when each link is free again
	sent  map[uint64]int64 // EffDataLimit: bytes each link carried
}

// pend is a fault start (or heal) waiting for a trigger.
type pend struct {
	i   int
	end bool
}

// held is an event withheld from a paused process until it resumes.
type held struct {
	p   payload
	ord uint64
	bg  bool
}

func (s *sim) faultRand() *rand.Rand {
	if s.fr == nil {
		s.fr = rand.New(rand.NewPCG(s.cfg.Seed, 0x6661756c7473)) // "faults"
	}
	return s.fr
}

// initFaults collects the legacy crashes and the faults into one timeline.
func (s *sim) initFaults() error {
	for _, c := range s.cfg.Crashes {
		s.faults = append(s.faults, crashFault(c))
	}
	s.legacy = len(s.faults)
	for i := range s.cfg.Faults {
		f := s.cfg.Faults[i]
		if f.Name == "" {
			f.Name = f.Effect.String()
		}
		s.faults = append(s.faults, f)
		if f.Effect.Delays() {
			s.fifoMode = false
		}
		if f.Effect == trial.EffPause && s.paused == nil {
			s.paused = make([]bool, s.n)
			s.held = make([][]held, s.n)
		}
	}
	s.fstate = make([]faultState, len(s.faults))
	s.faulty = len(s.cfg.Faults) > 0
	return nil
}

// startFaults applies the faults that start before anyone boots.
func (s *sim) startFaults() {
	for i := range s.faults {
		if f := &s.faults[i]; f.Start.Trigger == trial.AtStart && f.Start.Delay == 0 {
			s.activate(i, true)
		}
	}
}

// armFaults schedules every other start and heal, or queues it on its
// trigger. Called once the run's initiations are scheduled.
func (s *sim) armFaults() {
	for i := range s.faults {
		f := &s.faults[i]
		if !(f.Start.Trigger == trial.AtStart && f.Start.Delay == 0) {
			s.arm(f.Start, pend{i: i})
		}
		if f.End != nil {
			s.arm(*f.End, pend{i: i, end: true})
		}
	}
}

func (s *sim) arm(w trial.When, p pend) {
	switch w.Trigger {
	case trial.AtStart:
		s.fireFault(int64(w.Delay), p)
	case trial.AtTime:
		s.fireFault(int64(w.At)+int64(w.Delay), p)
	case trial.AfterMessages:
		s.afterMsgs = append(s.afterMsgs, p)
	case trial.LeaderElected:
		s.onElected = append(s.onElected, p)
	case trial.ElectionStart:
		s.onStart = append(s.onStart, p)
	}
}

func (s *sim) fireFault(at int64, p pend) {
	gen := uint32(p.i)
	kind := evFault
	if p.end {
		kind = evFaultEnd
	}
	s.schedule(at, classControl, payload{kind: kind, gen: gen})
}

func (s *sim) when(p pend) trial.When {
	if p.end {
		return *s.faults[p.i].End
	}
	return s.faults[p.i].Start
}

// checkMessageTriggers fires faults armed for "after K messages".
func (s *sim) checkMessageTriggers() {
	kept := s.afterMsgs[:0]
	for _, p := range s.afterMsgs {
		if w := s.when(p); s.res.Messages >= w.K {
			// A control event at this instant (plus delay), after the
			// sending handler returns: a handler is atomic.
			s.fireFault(s.now+int64(w.Delay), p)
		} else {
			kept = append(kept, p)
		}
	}
	s.afterMsgs = kept
}

// leaderElected fires the faults waiting for the first decision.
func (s *sim) leaderElected() {
	for _, p := range s.onElected {
		s.fireFault(s.now+int64(s.when(p).Delay), p)
	}
	s.onElected = nil
}

// electionStarted fires the faults waiting for the first initiation.
func (s *sim) electionStarted() {
	for _, p := range s.onStart {
		s.fireFault(s.now+int64(s.when(p).Delay), p)
	}
	s.onStart = nil
}

// activate starts fault i now.
func (s *sim) activate(i int, atStart bool) {
	st := &s.fstate[i]
	if st.state != fsPending {
		return // healed before it started, or started already
	}
	st.state = fsActive
	f := &s.faults[i]
	v := view{s}
	switch f.Effect {
	case trial.EffCrash:
		// Only the processes this fault crashes are its to restart.
		for _, p := range s.validTargets(f.Targets(v)) {
			if s.procs[p].alive {
				st.targets = append(st.targets, p)
			}
		}
		for _, p := range st.targets {
			s.crash(int32(p), atStart, f.Undetected)
		}
		s.record(f, "", st.targets)
	case trial.EffRestart:
		st.targets = s.validTargets(f.Targets(v))
		s.record(f, "", st.targets)
		for _, p := range st.targets {
			s.restart(int32(p))
		}
		st.state = fsDone
		return
	case trial.EffPause:
		st.targets = s.validTargets(f.Targets(v))
		s.record(f, "", st.targets)
		for _, p := range st.targets {
			s.pause(int32(p))
		}
	case trial.EffSuspect:
		st.targets = s.validTargets(f.Targets(v))
		var observers []int
		if f.Observers != nil {
			observers = s.validTargets(f.Observers(v))
		} else {
			observers = allPositions(s.n)
		}
		s.record(f, "", st.targets)
		for _, o := range observers {
			for _, q := range st.targets {
				if o != q {
					s.schedule(s.now, classControl, payload{kind: evSuspect, to: int32(o), from: int32(q)})
				}
			}
		}
		st.state = fsDone
		return
	default:
		ls := f.Links(v)
		a := &activeLink{f: f, index: i, has: ls.Has}
		switch f.Effect {
		case trial.EffBandwidth:
			a.busy = map[uint64]int64{}
		case trial.EffDataLimit:
			a.sent = map[uint64]int64{}
		}
		st.link = a
		s.links = append(s.links, a)
		s.record(f, ls.Text, nil)
	}
	if f.For > 0 {
		s.fireFault(s.now+int64(f.For), pend{i: i, end: true})
	}
}

// heal ends fault i now; a fault healed before it started never starts.
func (s *sim) heal(i int) {
	st := &s.fstate[i]
	if st.state != fsActive {
		st.state = fsDone
		return
	}
	st.state = fsDone
	f := &s.faults[i]
	switch f.Effect {
	case trial.EffCrash:
		s.recordEnd("restart", f, st.targets)
		for _, p := range st.targets {
			s.restart(int32(p))
		}
	case trial.EffPause:
		s.recordEnd("resume", f, st.targets)
		for _, p := range st.targets {
			s.resume(int32(p))
		}
	default:
		if st.link != nil {
			for k, a := range s.links {
				if a == st.link {
					s.links = append(s.links[:k], s.links[k+1:]...)
					break
				}
			}
			st.link = nil
		}
		s.recordEnd("heal", f, nil)
	}
}

// validTargets drops out-of-range positions and duplicates, keeping order.
func (s *sim) validTargets(ps []int) []int {
	out := ps[:0:0]
	seen := map[int]bool{}
	for _, p := range ps {
		if p >= 0 && p < s.n && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

func (s *sim) record(f *trial.Fault, links string, targets []int) {
	what := f.Name
	if targets != nil || !f.Effect.OnLinks() {
		what += "(" + positions(targets) + ")"
	} else if links != "" {
		what += "[" + links + "]"
	}
	s.res.Faults = append(s.res.Faults, trial.FaultEvent{At: time.Duration(s.now), What: what})
	if !s.isLegacy(f) {
		s.emitFault(what)
	}
}

// isLegacy reports whether f comes from Config.Crashes: those are traced
// as "crash" events only.
func (s *sim) isLegacy(f *trial.Fault) bool {
	for i := range s.legacy {
		if &s.faults[i] == f {
			return true
		}
	}
	return false
}

func (s *sim) emitFault(what string) {
	if s.want.Has(trial.EvFault) {
		s.ev.Event(&trial.Event{At: time.Duration(s.now), Kind: trial.EvFault, What: what})
	}
}

func (s *sim) recordEnd(verb string, f *trial.Fault, targets []int) {
	what := verb
	if verb == "heal" {
		what += " " + f.Name
	} else {
		what += "(" + positions(targets) + ")"
	}
	s.res.Faults = append(s.res.Faults, trial.FaultEvent{At: time.Duration(s.now), What: what})
	s.emitFault(what)
}

// positions lists positions as "3" or "1,4,7", eliding long lists.
func positions(ps []int) string {
	const most = 8
	var b strings.Builder
	for i, p := range ps {
		if i == most {
			fmt.Fprintf(&b, ",+%d", len(ps)-most)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(p))
	}
	return b.String()
}

// affects reports whether active link effect a applies to the link from→to:
// in its set, and chosen by its toxicity.
func (s *sim) affects(a *activeLink, from, to int32) bool {
	if !a.has(int(from), int(to)) {
		return false
	}
	tox := a.f.Toxicity
	if tox <= 0 || tox >= 1 {
		return true
	}
	// A per-link coin from the trial seed, the fault and the link: the same
	// links are affected whatever the order of sends.
	h := mix(s.cfg.Seed ^ mix(uint64(a.index)<<40^uint64(from)<<20^uint64(to)))
	return float64(h>>11)/(1<<53) < tox
}

// sendFaulty is send's tail in a run with faults.
func (s *sim) sendFaulty(from, to int32, m *nodes.Message, size int64) {
	s.seq++
	ord := order(classDeliver, s.seq)
	if s.want.Has(trial.EvSend) {
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
		f := a.f
		link := uint64(from)<<32 | uint64(uint32(to))
		switch f.Effect {
		case trial.EffCut:
			lost = true
		case trial.EffLoss:
			if s.faultRand().Float64() < f.P {
				lost = true
			}
		case trial.EffDelay:
			d := int64(f.Latency)
			if f.Jitter > 0 {
				d += s.faultRand().Int64N(2*int64(f.Jitter)+1) - int64(f.Jitter)
			}
			extra += max(d, 0)
		case trial.EffBandwidth:
			start := max(s.now, a.busy[link])
			done := start + size*int64(time.Second)/f.Rate
			a.busy[link] = done
			extra += done - s.now
		case trial.EffSlicer:
			slices := int64(0)
			for left := size; left > 0; slices++ {
				sz := f.SliceSize
				if f.SliceVariation > 0 {
					sz += s.faultRand().Int64N(2*f.SliceVariation+1) - f.SliceVariation
				}
				left -= sz
			}
			extra += max(slices-1, 0) * int64(f.SliceDelay)
		case trial.EffDuplicate:
			if s.faultRand().Float64() < f.P {
				dup = true
			}
		case trial.EffReorder:
			if s.faultRand().Float64() < f.P {
				overtake = true
				extra += s.faultRand().Int64N(int64(f.Latency) + 1)
			}
		case trial.EffDataLimit:
			a.sent[link] += size
			if a.sent[link] > f.Bytes {
				lost = true
			}
		case trial.EffLinkModel:
			model = f.Model
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
		d := s.fifo.slot()
		d.at, d.ord, d.to, d.from, d.msg = at, ord, to, from, *m
		return
	}
	if !overtake {
		at = s.fifoAt(from, to, at)
	}
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
	p.kind, p.to, p.from, p.msg = evDeliver, to, from, *m
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
		s.hold(to, payload{kind: evDeliver, to: to, from: from, msg: *m}, ord, s.background(m.Kind))
		return true
	}
	for _, a := range s.links {
		if a.f.Effect == trial.EffCut && s.affects(a, from, to) {
			s.lose(from, to, ord, m)
			return true
		}
	}
	return false
}

// hold keeps an event of a paused process for its resumption.
func (s *sim) hold(p int32, ev payload, ord uint64, bg bool) {
	s.held[p] = append(s.held[p], held{p: ev, ord: ord, bg: bg})
}

func (s *sim) pause(p int32) {
	if s.paused[p] {
		return
	}
	s.paused[p] = true
	s.emitProc(trial.EvPause, p)
}

// resume releases what a paused process missed, at this instant and in the
// order it arrived: its messages, then its overdue timers.
func (s *sim) resume(p int32) {
	if !s.paused[p] {
		return
	}
	s.paused[p] = false
	s.emitProc(trial.EvResume, p)
	evs := s.held[p]
	s.held[p] = nil
	for _, h := range evs {
		if !h.bg {
			s.core++
		}
		slot, p := s.slab.alloc()
		*p = h.p
		s.heap.push(entry{at: s.now, ord: h.ord, slot: slot, to: h.p.to})
	}
}

// restart brings a crashed process back as a fresh machine with the same
// rank: it knows no leader, its old timers are void, and it boots again.
// Messages that arrived while it was down were lost; those still in flight
// reach the new machine.
func (s *sim) restart(p int32) {
	if s.procs[p].alive {
		return
	}
	s.procs[p].alive = true
	for k, st := range s.timers {
		if int32(k>>16) == p && st.armed {
			st.gen++
			st.armed = false
			s.timers[k] = st
		}
	}
	s.procs[p].m = s.newMachine()
	s.res.Decisions[p] = trial.Decision{}
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
	s.procs[p].m.Start(&s.procs[p])
	s.afterEvent(p)
}
