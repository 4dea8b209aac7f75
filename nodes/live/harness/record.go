package harness

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// The nodes report on pipes of their own, so their events reach the
// harness out of time order: each is logged as it comes (decode), and
// emitted in time order — counted into the record through its methods and
// handed to the trial's sink (emit), as the simulator counts and emits as
// it goes — once no event still to come can be earlier (the watermark,
// flush). A node's events come in its own time order, and the harness's
// at its clock's; a node that has said nothing for a while may still be
// about to, so once holdEvents are held the harness asks every running
// node the time on its clock (a "sync" command, answered after every step
// line before it): nothing it reports later is earlier. The events up to
// the least of those times and the harness's own are emitted and freed, so
// a trial holds about holdEvents events whatever its length, and its trace
// streams to disk as the simulator's does (issue 22). The rest are emitted
// at the end. Where the hosts' clocks were estimated, time order gives
// way to happens-before where the two disagree (causal.go).

// holdEvents is how many events the harness holds before it asks the nodes
// for their clocks (a variable: tests make it small).
var holdEvents = 1024

// entry is one event of the trial, compact: what its trial.Event needs,
// with the ranks and texts few events have kept aside, so that logging and
// sorting a long run move little and leave the collector nothing to scan.
// The trial.Event is built only for a sink that wants its kind (event).
// Entries live in slots that are reused once emitted: a send stays until
// its delivery pairs with it (queued), as the delivery needs its ranks.
type entry struct {
	at  time.Duration
	id  uint64 // a message's number as its line arrived; emit renumbers
	seq uint64 // arrival order: events of equal time keep it
	a   int64  // the message's A and B
	b   int64
	p   int32
	q   int32
	// extra indexes the event's ranks or text: a message's Rank and Aux
	// (or a decision's leader) in ranks, -1 for none; a phase's or a
	// fault's text in texts.
	extra     int32
	size      int32 // EvSend: encoded bytes
	kind      trial.EventKind
	wasLeader bool // EvCrash: the latest decision named it
	untraced  bool // EvFault: in the schedule, not in the trace (a --crash crash)
	queued    bool // on a link's flight queue: a send awaiting its delivery, or a delivery its send
	emitted   bool
	awaited   bool // EvSend: a delivery or drop of it may still be emitted (it needs the send's number)
	orphan    bool // EvRecv, unpaired: its sender's process ended without its send's line
	msg       nodes.Kind
	timer     nodes.TimerID
}

// entries hold a trial's events from their arrival to their emission, in
// slots reused once emitted, with the ranks and texts few events have.
type entries struct {
	slots   []entry
	free    []int32
	pending []int32 // slots not yet emitted
	seq     uint64
	ranks   [][2]nodes.Rank
	freeRk  []int32
	texts   []string
	freeTx  []int32
	held    int           // the most events held at once
	mark    time.Duration // the watermark of the latest flush
	late    int64         // events that arrived earlier than it: a node broke its clock's order
	// causal orders a clocked trial's events by happens-before (causal.go).
	causal *causal
}

// eventLog is a trial's events from their arrival (the nodes' step lines,
// the harness's own) to their emission into the record and the sink, and
// the counts of the trial's result they carry. It reads the processes'
// state and writes them sync commands, nothing else.
type eventLog struct {
	entries
	n     int
	steps int64 // step lines: events the machines handled
	// trace: the sink reads messages, ranks and all, so the nodes report
	// the ranks too (live.Config.Trace).
	trace bool
	// Pairing deliveries with sends, by link (from*n+to): links are FIFO,
	// so a delivery is of the oldest message queued on its link with its
	// kind, A and B, and those queued ahead of it were lost.
	nextID   uint64
	flight   []inflight
	inFlight int64 // sends queued on every link: written, not yet delivered
	// For reconciliation: every message each position's step lines listed,
	// and its latest counts of the runtime's own kinds (maint).
	nodeSent []Counts
	maint    []map[string]int64

	// Emission: the record counted in time order, the sink, messages
	// numbered in the order they were sent (as the simulator numbers
	// them), and the number and time of every emitted send whose delivery
	// is still to be emitted.
	rec       trial.Record
	sink      trial.Sink
	want      trial.Kinds
	startsAll bool
	numbered  uint64
	sends     map[uint64]sentMsg
	wm        watermark
	// res is the trial's result, whose counts of messages by kind and
	// suspicions the log fills.
	res   *Result
	procs *procs
	clock *schedule
	fail  func(format string, args ...any) // notes a failure as the trial's
}

// watermark is every running process's clock as last known, and the sync
// round under way.
type watermark struct {
	clocks  map[*proc]*clock
	syncing int // sync answers awaited
	// nextRound is how many events held start the next round: holdEvents
	// more than the last round left, so that a clock held back (a paused
	// process) costs a round per holdEvents events, not one per event.
	nextRound int
}

type sentMsg struct {
	id uint64
	at time.Duration
}

// clock is what the harness knows of a process's clock: nothing it
// reports from now on is earlier than bound.
type clock struct {
	bound    time.Duration
	awaiting bool // a sync is unanswered
}

// inflight are the sends of one link not yet paired with a delivery, and
// the deliveries that arrived before their send's step line.
type inflight struct{ sends, early []int32 }

func newEventLog(n int, cfg *trial.Config, t time.Duration, det trial.Detector) *eventLog {
	sink := cfg.Events
	want := trial.KindsOfSink(sink)
	return &eventLog{n: n, trace: (want.Has(trial.EvSend) || want.Has(trial.EvRecv)) && trial.ReadsRanks(sink),
		flight: make([]inflight, n*n), nodeSent: make([]Counts, n), maint: make([]map[string]int64, n),
		rec: trial.NewRecord(n, t, det), sink: sink, want: want, startsAll: cfg.Algorithm.StartsAll,
		sends: map[uint64]sentMsg{}, wm: watermark{clocks: map[*proc]*clock{}, nextRound: holdEvents}}
}

func (l *entries) add(e entry) int32 {
	l.seq++
	e.seq = l.seq
	if e.at < l.mark {
		l.late++
	}
	var i int32
	if k := len(l.free); k > 0 {
		i = l.free[k-1]
		l.free = l.free[:k-1]
		l.slots[i] = e
	} else {
		l.slots = append(l.slots, e)
		i = int32(len(l.slots) - 1)
	}
	l.pending = append(l.pending, i)
	l.held = max(l.held, len(l.pending))
	return i
}

// release frees slot i once it is emitted and off every queue, with the
// ranks or text it holds.
func (l *entries) release(i int32) {
	e := &l.slots[i]
	if !e.emitted || e.queued {
		return
	}
	if e.extra >= 0 {
		switch {
		case e.kind.IsMessage() || e.kind == trial.EvDecide:
			l.ranks[e.extra] = [2]nodes.Rank{}
			l.freeRk = append(l.freeRk, e.extra)
		case e.kind == trial.EvPhase || e.kind == trial.EvFault:
			l.texts[e.extra] = ""
			l.freeTx = append(l.freeTx, e.extra)
		}
	}
	*e = entry{}
	l.free = append(l.free, i)
}

// rank keeps a message's rank and aux (or a decision's leader) aside and
// returns their index.
func (l *entries) rank(r, aux nodes.Rank) int32 {
	if k := len(l.freeRk); k > 0 {
		i := l.freeRk[k-1]
		l.freeRk = l.freeRk[:k-1]
		l.ranks[i] = [2]nodes.Rank{r, aux}
		return i
	}
	l.ranks = append(l.ranks, [2]nodes.Rank{r, aux})
	return int32(len(l.ranks) - 1)
}

// text keeps s aside and returns its index.
func (l *entries) text(s string) int32 {
	if k := len(l.freeTx); k > 0 {
		i := l.freeTx[k-1]
		l.freeTx = l.freeTx[:k-1]
		l.texts[i] = s
		return i
	}
	l.texts = append(l.texts, s)
	return int32(len(l.texts) - 1)
}

// proc logs a harness-side event of process p: a restart, a pause, a
// resume.
func (l *eventLog) proc(at time.Duration, k trial.EventKind, p int) {
	l.add(entry{at: at, kind: k, p: int32(p), extra: -1})
}

// crash logs p's crash.
func (l *eventLog) crash(at time.Duration, p int, wasLeader bool) {
	l.add(entry{at: at, kind: trial.EvCrash, p: int32(p), wasLeader: wasLeader, extra: -1})
}

// fault logs an entry of the fault schedule; traced says the trace shows
// it too.
func (l *eventLog) fault(at time.Duration, what string, traced bool) {
	l.add(entry{at: at, kind: trial.EvFault, extra: l.text(what), untraced: !traced})
}

// event builds e's trial.Event.
func (l *entries) event(e *entry, ev *trial.Event) {
	*ev = trial.Event{At: e.at, Kind: e.kind, P: e.p, Q: e.q, ID: e.id, Timer: e.timer}
	switch {
	case e.kind.IsMessage():
		ev.Msg = nodes.Message{Kind: e.msg, A: e.a, B: e.b}
		if e.extra >= 0 {
			ev.Msg.Rank, ev.Msg.Aux = l.ranks[e.extra][0], l.ranks[e.extra][1]
		}
	case e.kind == trial.EvDecide:
		ev.Leader = l.ranks[e.extra][0]
	case e.kind == trial.EvPhase:
		ev.Phase = l.texts[e.extra]
	case e.kind == trial.EvFault:
		ev.What = l.texts[e.extra]
	}
}

// countNodeSent counts what a step line of position p lists as sent,
// whenever it comes: the node's own count must agree (reconcile).
func (l *eventLog) countNodeSent(p int, r *live.Report) {
	if len(r.Sent) == 0 {
		return
	}
	if l.nodeSent[p] == nil {
		l.nodeSent[p] = newCounts()
	}
	l.nodeSent[p].grow()
	for i := range r.Sent {
		if k := r.Sent[i].Kind; k.Valid() {
			l.nodeSent[p][k]++
		}
	}
}

// decode logs the events of one step line of p, the current process of its
// position, and returns the leaders it decided. Kinds and timers are the
// numbers of the shared registry (hello checked it), used as they are;
// anything out of range fails the trial and is skipped.
func (l *eventLog) decode(p *proc, at time.Duration, r *live.Report) []nodes.Rank {
	res, n, pos := l.res, l.n, int32(p.pos)
	l.steps++
	l.stepped(p, at)
	defer l.watermark()
	ev := entry{at: at, p: pos, extra: -1}
	switch r.Ev {
	case "start":
		// A restarted process's start is logged as its restart (handle).
		if p.inc == 0 {
			ev.kind = trial.EvStart
			l.add(ev)
		}
	case "initiate":
		ev.kind = trial.EvInitiate
		l.add(ev)
	case "recv":
		if !r.Kind.Valid() || int(r.Kind) >= len(res.Received) || r.From < 0 || r.From >= n {
			l.fail("node %d received a message of kind %d from %d", pos, r.Kind, r.From)
			break
		}
		res.Received[r.Kind]++
		ev.kind, ev.p, ev.q, ev.msg, ev.a, ev.b = trial.EvRecv, int32(r.From), pos, r.Kind, r.A, r.B
		l.delivered(l.add(ev))
	case "timer":
		if int(r.Timer) <= 0 || int(r.Timer) >= nodes.NumTimers() {
			l.fail("node %d: timer %d fired, which is not registered", pos, r.Timer)
			break
		}
		ev.kind, ev.timer = trial.EvTimer, r.Timer
		l.add(ev)
	case "library":
		// A live-only algorithm's library acted on its own clock
		// (nodes.Library): the step is only its sends and decisions.
	case "suspect":
		if r.Peer < 0 || r.Peer >= n {
			l.fail("node %d suspected %d", pos, r.Peer)
			break
		}
		ev.kind, ev.q = trial.EvSuspect, int32(r.Peer)
		l.add(ev)
	default:
		l.fail("node %d: unknown step %q", pos, r.Ev)
	}
	leaders, after := l.decisions(pos, r)
	d := 0
	decide := func(sent int) {
		for ; d < len(leaders) && after[d] <= sent; d++ {
			l.add(entry{at: at, kind: trial.EvDecide, p: pos, extra: l.rank(leaders[d], nodes.Rank{})})
		}
	}
	for i := range r.Sent {
		decide(i)
		m := &r.Sent[i]
		if !m.Kind.Valid() || int(m.Kind) >= len(res.Sent) || m.To < 0 || m.To >= n {
			l.fail("node %d sent a message of kind %d to %d", pos, m.Kind, m.To)
			continue
		}
		res.Sent[m.Kind]++
		l.nextID++
		e := entry{at: at, kind: trial.EvSend, p: pos, q: int32(m.To), id: l.nextID, msg: m.Kind, a: m.A, b: m.B,
			size: int32(m.Bytes), extra: -1}
		if m.Rank != "" || m.Aux != "" {
			rk, err1 := parseRank(m.Rank)
			aux, err2 := parseRank(m.Aux)
			if err := errors.Join(err1, err2); err != nil {
				l.fail("node %d sent %s with %v", pos, m.Kind, err)
			}
			e.extra = l.rank(rk, aux)
		}
		i := l.add(e)
		if m.Dropped || m.Lost {
			e.kind, e.size = trial.EvLose, 0 // counted lost at the end: sent, neither dropped nor received
			if m.Dropped {
				res.Dropped[m.Kind]++
				e.kind = trial.EvDrop
			}
			l.slots[i].awaited = true // the drop or loss takes the send's number
			if e.extra >= 0 {
				e.extra = l.rank(l.ranks[e.extra][0], l.ranks[e.extra][1])
			}
			l.add(e)
			continue
		}
		l.sent(i)
	}
	decide(len(r.Sent))
	if r.Phase != "" {
		l.add(entry{at: at, kind: trial.EvPhase, p: pos, extra: l.text(r.Phase)})
	}
	return leaders
}

// decisions are the decisions of a step line of position pos, in order,
// and how many of its messages came before each: the events keep the
// machine's order.
func (l *eventLog) decisions(pos int32, r *live.Report) (leaders []nodes.Rank, after []int) {
	for i, d := range r.Decide {
		leader, err := nodes.ParseRank(d)
		if err != nil {
			l.fail("node %d decided %q: %v", pos, d, err)
			continue
		}
		k := len(r.Sent)
		if i < len(r.DecideAfter) {
			k = r.DecideAfter[i]
		}
		leaders, after = append(leaders, leader), append(after, k)
	}
	return leaders, after
}

func parseRank(s string) (nodes.Rank, error) {
	if s == "" {
		return nodes.Rank{}, nil
	}
	return nodes.ParseRank(s)
}

// sent queues send i on its link, unless a delivery came first.
func (l *eventLog) sent(i int32) {
	e := &l.slots[i]
	f := &l.flight[int(e.p)*l.n+int(e.q)]
	if len(f.early) > 0 {
		if j := f.early[0]; sameMessage(&l.slots[j], e) {
			// Its delivery, still to be emitted, takes its number
			// (emit): unless pair finds it emitted already.
			e.awaited = true
			l.pair(i, j)
			f.early = f.early[1:]
			l.unqueue(j)
		}
		// Otherwise a later message was delivered before this one's step
		// line came: on a FIFO link, this one was lost.
		return
	}
	e.queued, e.awaited = true, true
	f.sends = append(f.sends, i)
	l.inFlight++
}

// delivered pairs delivery j with the oldest matching send queued on its
// link; those ahead of it were lost. With none, its send's line is still
// to come, and every send queued was lost.
func (l *eventLog) delivered(j int32) {
	e := &l.slots[j]
	f := &l.flight[int(e.p)*l.n+int(e.q)]
	for k, i := range f.sends {
		if sameMessage(&l.slots[i], e) {
			l.lost(f.sends[:k])
			l.pair(i, j)
			f.sends = f.sends[k+1:]
			l.unqueue(i)
			return
		}
	}
	l.lost(f.sends)
	f.sends = f.sends[:0]
	e.queued = true
	f.early = append(f.early, j)
}

// lost takes sends off their link's queue for good: no delivery will
// take their number.
func (l *eventLog) lost(sends []int32) {
	for _, i := range sends {
		e := &l.slots[i]
		e.awaited = false
		if e.emitted {
			delete(l.sends, e.id)
		}
		l.unqueue(i)
	}
}

// unqueue takes slot i off its link's queue (the caller removes it from
// the queue itself).
func (l *eventLog) unqueue(i int32) {
	e := &l.slots[i]
	if e.queued && e.kind == trial.EvSend {
		l.inFlight--
	}
	e.queued = false
	l.release(i)
}

// sameMessage compares what a delivery's step line says of a message. A
// node program's message (an external kind) has for A its body's number
// in the table of the process that holds it (nodes/external: Adopt), which
// differs between its sender and its receiver, so only its kind and its
// body's length (B) are compared: on a link, which keeps order, the oldest
// such send is its. Compared on A too, nearly every delivery of a program's
// message went unpaired, its delay unmeasured and a message held past D
// not an overrun (a live bully-py row wrong with overruns 0).
func sameMessage(a, b *entry) bool {
	if a.msg.IsExternal() {
		return a.msg == b.msg && a.b == b.b
	}
	return a.msg == b.msg && a.a == b.a && a.b == b.b
}

// pair makes delivery j the delivery of send i: its number, and the ranks
// only the send's line carries. A delivery already emitted (its send's
// line came later than the watermark allowed for) keeps what it had.
func (l *eventLog) pair(i, j int32) {
	s, d := &l.slots[i], &l.slots[j]
	if d.emitted {
		s.awaited = false
		return
	}
	d.id = s.id
	if s.extra >= 0 {
		d.extra = l.rank(l.ranks[s.extra][0], l.ranks[s.extra][1])
	}
}

// ended notes that link q→p will carry nothing more to p's process: it
// died, and its last lines are in. What was queued to it was lost.
func (l *eventLog) ended(p int) {
	for q := range l.n {
		f := &l.flight[q*l.n+p]
		l.lost(f.sends)
		f.sends = f.sends[:0]
	}
}

// emit counts entry e into the record and hands it to the sink, in time
// order, numbering messages in the order they were sent.
func (l *eventLog) emit(i int32) {
	e := &l.slots[i]
	rec := &l.rec
	switch e.kind {
	case trial.EvStart:
		if l.startsAll {
			rec.Initiated(e.at)
		}
	case trial.EvInitiate:
		rec.Initiated(e.at)
	case trial.EvSend:
		rec.CountSend(e.msg, int64(e.size))
	case trial.EvRecv:
		rec.Delivered(e.msg, e.at)
	case trial.EvDrop:
		rec.CountDrop()
	case trial.EvTimer:
		rec.CountFire(e.timer)
	case trial.EvSuspect:
		rec.Suspected(int(e.q), e.at)
		l.res.Suspicions = append(l.res.Suspicions, Suspicion{At: e.at, By: int(e.p), Of: int(e.q)})
	case trial.EvDecide:
		rec.Decided(int(e.p), &l.ranks[e.extra][0], e.at)
	case trial.EvCrash:
		rec.Crashed(int(e.p), e.at, e.wasLeader)
	case trial.EvRestart:
		rec.Restarted(int(e.p))
	case trial.EvFault:
		rec.NoteFault(e.at, l.texts[e.extra])
	}
	// A send keeps the number its line got (a delivery may still pair
	// with it by that number); the event carries the final one.
	var id uint64
	switch {
	case e.kind == trial.EvSend:
		l.numbered++
		id = l.numbered
		if e.awaited {
			l.sends[e.id] = sentMsg{id: id, at: e.at}
		}
	case e.kind.IsMessage():
		if s, ok := l.sends[e.id]; ok && e.id != 0 {
			delete(l.sends, e.id)
			id = s.id
			if e.kind == trial.EvRecv {
				rec.Delayed(e.msg, e.at-s.at)
			}
		} else {
			// Its send was never reported, or came too late: a number
			// of its own.
			l.numbered++
			id = l.numbered
		}
	}
	if l.want.Has(e.kind) && !e.untraced {
		var ev trial.Event
		l.event(e, &ev)
		ev.ID = id
		l.sink.Event(&ev)
	}
	e.emitted = true
	l.release(i)
}

// flush emits, in time order, every event held that is no later than w;
// those of equal time in the order they arrived.
func (l *eventLog) flush(w time.Duration) {
	slices.SortFunc(l.pending, func(a, b int32) int {
		x, y := &l.slots[a], &l.slots[b]
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	if l.rec.Clocked && causalOrder {
		// finish flushes at the end of time: nothing is still to come.
		l.flushCausal(w, w == math.MaxInt64)
		return
	}
	k := 0
	for k < len(l.pending) && l.slots[l.pending[k]].at <= w {
		l.emit(l.pending[k])
		k++
	}
	l.pending = append(l.pending[:0], l.pending[k:]...)
	l.mark = max(l.mark, w)
}

// clockStarts notes that p was told to start at the harness's time `at`: its
// machine's events are no earlier (the node's clock reads the shared one
// after the harness's did).
func (l *eventLog) clockStarts(p *proc, at time.Duration) {
	l.wm.clocks[p] = &clock{bound: at}
}

// synced takes p's answer to a sync: its clock read t.
func (l *eventLog) synced(p *proc, t time.Duration) {
	c := l.wm.clocks[p]
	if c == nil || !c.awaiting {
		return
	}
	c.bound, c.awaiting = max(c.bound, t), false
	l.wm.syncing--
	l.advance()
}

// procEnded notes that p's output ended: it holds the watermark back no
// more, and what was in flight to it is lost.
func (l *eventLog) procEnded(p *proc) {
	c := l.wm.clocks[p]
	if c == nil {
		return
	}
	delete(l.wm.clocks, p)
	if l.procs.current(p) {
		// Not yet replaced: a restarted position's new process may
		// already have messages in flight to it.
		l.ended(p.pos)
		l.orphan(p.pos)
	}
	if c.awaiting {
		l.wm.syncing--
		l.advance()
	}
}

// stepped notes that p reported an event at `at`: nothing it reports
// later is earlier.
func (l *eventLog) stepped(p *proc, at time.Duration) {
	if c := l.wm.clocks[p]; c != nil {
		c.bound = max(c.bound, at)
	}
}

// watermark asks for the clocks of the running processes once enough
// events are held (nextRound), and no round is under way.
func (l *eventLog) watermark() {
	if len(l.pending) < l.wm.nextRound || l.wm.syncing > 0 {
		return
	}
	for p, c := range l.wm.clocks {
		if p.pos >= 0 && !l.procs.paused[p.pos] && !p.killed {
			c.awaiting = true
			l.wm.syncing++
			l.procs.write(p, live.Command{Type: "sync"})
		}
	}
	l.advance()
}

// advance emits what the clocks known allow, once no answer is awaited.
func (l *eventLog) advance() {
	if l.wm.syncing > 0 {
		return
	}
	w := l.clock.now()
	for _, c := range l.wm.clocks {
		w = min(w, c.bound)
	}
	l.flush(w)
	l.wm.nextRound = len(l.pending) + holdEvents
}

// maintKinds are the runtime's own kinds (the heartbeat detector's), which
// step lines do not carry: the nodes count them.
var maintKinds = []nodes.Kind{trial.KindPing, trial.KindPingAck}
