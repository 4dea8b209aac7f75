package harness

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// The nodes report on pipes of their own, so their events reach the
// harness out of time order: each is logged as it comes (decode), and at
// the end the log is sorted by time, counted into the record through its
// methods and emitted to the trial's sink (finish), as the simulator
// counts and emits as it goes.

// entry is one event of the trial, compact: what its trial.Event needs,
// with the ranks and texts few events have kept aside, so that logging and
// sorting a long run move little and leave the collector nothing to scan.
// The trial.Event is built only for a sink that wants its kind (event).
type entry struct {
	at time.Duration
	id uint64
	a  int64 // the message's A and B
	b  int64
	p  int32
	q  int32
	// extra indexes the event's ranks or text: a message's Rank in ranks
	// (its Aux follows; -1: none reported), a decision's leader in ranks,
	// a phase's or a fault's text in texts.
	extra     int32
	size      int32 // EvSend: encoded bytes
	kind      trial.EventKind
	wasLeader bool // EvCrash: the latest decision named it
	untraced  bool // EvFault: in the schedule, not in the trace (a --crash crash)
	msg       nodes.Kind
	timer     nodes.TimerID
}

// eventLog is a trial's events as they arrived.
type eventLog struct {
	n      int
	events []entry
	ranks  []nodes.Rank
	texts  []string
	steps  int64 // step lines: events the machines handled
	// trace: the sink reads messages, ranks and all, so the nodes report
	// the ranks too (live.Config.Trace).
	trace bool
	// Pairing deliveries with sends, by link (from*n+to): links are FIFO,
	// so a delivery is of the oldest message queued on its link with its
	// kind, A and B, and those queued ahead of it were lost.
	nextID uint64
	flight []inflight
	// For reconciliation: every message each position's step lines listed,
	// and its latest counts of the runtime's own kinds (maint).
	nodeSent []Counts
	maint    []map[string]int64
}

// inflight are the sends of one link not yet paired with a delivery, and
// the deliveries that arrived before their send's step line.
type inflight struct{ sends, early []int }

func newEventLog(n int, sink trial.Sink) eventLog {
	want := trial.KindsOfSink(sink)
	return eventLog{n: n, trace: (want.Has(trial.EvSend) || want.Has(trial.EvRecv)) && trial.ReadsRanks(sink),
		flight: make([]inflight, n*n), nodeSent: make([]Counts, n), maint: make([]map[string]int64, n)}
}

func (l *eventLog) add(e entry) int {
	l.events = append(l.events, e)
	return len(l.events) - 1
}

// rank keeps r aside and returns its index.
func (l *eventLog) rank(r ...nodes.Rank) int32 {
	l.ranks = append(l.ranks, r...)
	return int32(len(l.ranks) - len(r))
}

// text keeps s aside and returns its index.
func (l *eventLog) text(s string) int32 {
	l.texts = append(l.texts, s)
	return int32(len(l.texts) - 1)
}

// proc logs a harness-side event of process p: a restart, a pause, a
// resume.
func (l *eventLog) proc(at time.Duration, k trial.EventKind, p int) {
	l.add(entry{at: at, kind: k, p: int32(p)})
}

// crash logs p's crash.
func (l *eventLog) crash(at time.Duration, p int, wasLeader bool) {
	l.add(entry{at: at, kind: trial.EvCrash, p: int32(p), wasLeader: wasLeader})
}

// fault logs an entry of the fault schedule; traced says the trace shows
// it too.
func (l *eventLog) fault(at time.Duration, what string, traced bool) {
	l.add(entry{at: at, kind: trial.EvFault, extra: l.text(what), untraced: !traced})
}

// event builds e's trial.Event.
func (l *eventLog) event(e *entry, ev *trial.Event) {
	*ev = trial.Event{At: e.at, Kind: e.kind, P: e.p, Q: e.q, ID: e.id, Timer: e.timer}
	switch {
	case e.kind.IsMessage():
		ev.Msg = nodes.Message{Kind: e.msg, A: e.a, B: e.b}
		if e.extra >= 0 {
			ev.Msg.Rank, ev.Msg.Aux = l.ranks[e.extra], l.ranks[e.extra+1]
		}
	case e.kind == trial.EvDecide:
		ev.Leader = l.ranks[e.extra]
	case e.kind == trial.EvPhase, e.kind == trial.EvFault:
		if e.kind == trial.EvPhase {
			ev.Phase = l.texts[e.extra]
		} else {
			ev.What = l.texts[e.extra]
		}
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
func (lt *liveTrial) decode(p *proc, at time.Duration, r *live.Report) []nodes.Rank {
	l, res, n, pos := &lt.log, &lt.res, lt.n, int32(p.pos)
	l.steps++
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
			lt.fail("node %d received a message of kind %d from %d", pos, r.Kind, r.From)
			break
		}
		res.Received[r.Kind]++
		ev.kind, ev.p, ev.q, ev.msg, ev.a, ev.b = trial.EvRecv, int32(r.From), pos, r.Kind, r.A, r.B
		l.delivered(l.add(ev))
	case "timer":
		if int(r.Timer) <= 0 || int(r.Timer) >= nodes.NumTimers() {
			lt.fail("node %d: timer %d fired, which is not registered", pos, r.Timer)
			break
		}
		ev.kind, ev.timer = trial.EvTimer, r.Timer
		l.add(ev)
	case "suspect":
		if r.Peer < 0 || r.Peer >= n {
			lt.fail("node %d suspected %d", pos, r.Peer)
			break
		}
		ev.kind, ev.q = trial.EvSuspect, int32(r.Peer)
		l.add(ev)
	default:
		lt.fail("node %d: unknown step %q", pos, r.Ev)
	}
	// The step's decisions, in order, and how many of its messages came
	// before each: the events keep the machine's order.
	var leaders []nodes.Rank
	var after []int
	for i, d := range r.Decide {
		leader, err := nodes.ParseRank(d)
		if err != nil {
			lt.fail("node %d decided %q: %v", pos, d, err)
			continue
		}
		k := len(r.Sent)
		if i < len(r.DecideAfter) {
			k = r.DecideAfter[i]
		}
		leaders, after = append(leaders, leader), append(after, k)
	}
	d := 0
	decide := func(sent int) {
		for ; d < len(leaders) && after[d] <= sent; d++ {
			l.add(entry{at: at, kind: trial.EvDecide, p: pos, extra: l.rank(leaders[d])})
		}
	}
	for i := range r.Sent {
		decide(i)
		m := &r.Sent[i]
		if !m.Kind.Valid() || int(m.Kind) >= len(res.Sent) || m.To < 0 || m.To >= n {
			lt.fail("node %d sent a message of kind %d to %d", pos, m.Kind, m.To)
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
				lt.fail("node %d sent %s with %v", pos, m.Kind, err)
			}
			e.extra = l.rank(rk, aux)
		}
		i := l.add(e)
		if m.Dropped {
			res.Dropped[m.Kind]++
			e.kind, e.size = trial.EvDrop, 0
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

func parseRank(s string) (nodes.Rank, error) {
	if s == "" {
		return nodes.Rank{}, nil
	}
	return nodes.ParseRank(s)
}

// sent queues send i on its link, unless a delivery came first.
func (l *eventLog) sent(i int) {
	e := &l.events[i]
	f := &l.flight[int(e.p)*l.n+int(e.q)]
	if len(f.early) > 0 {
		if j := f.early[0]; sameMessage(&l.events[j], e) {
			l.pair(i, j)
			f.early = f.early[1:]
		}
		// Otherwise a later message was delivered before this one's step
		// line came: on a FIFO link, this one was lost.
		return
	}
	f.sends = append(f.sends, i)
}

// delivered pairs delivery j with the oldest matching send queued on its
// link; those ahead of it were lost. With none, its send's line is still
// to come, and every send queued was lost.
func (l *eventLog) delivered(j int) {
	e := &l.events[j]
	f := &l.flight[int(e.p)*l.n+int(e.q)]
	for k, i := range f.sends {
		if sameMessage(&l.events[i], e) {
			l.pair(i, j)
			f.sends = f.sends[k+1:]
			return
		}
	}
	f.sends = f.sends[:0]
	f.early = append(f.early, j)
}

// sameMessage compares what a delivery's step line says of a message.
func sameMessage(a, b *entry) bool { return a.msg == b.msg && a.a == b.a && a.b == b.b }

// pair makes delivery j the delivery of send i: its ID, and the ranks
// only the send's line carries.
func (l *eventLog) pair(i, j int) {
	s, d := &l.events[i], &l.events[j]
	d.id, d.extra = s.id, s.extra
}

// renumber numbers the messages in the order they were sent, as the
// simulator does (they were numbered as their lines arrived); a delivery
// whose send was never reported gets a number of its own.
func (l *eventLog) renumber() {
	ids := make([]uint64, l.nextID+1)
	var next uint64
	for i := range l.events {
		if e := &l.events[i]; e.kind == trial.EvSend {
			next++
			ids[e.id] = next
		}
	}
	for i := range l.events {
		e := &l.events[i]
		switch {
		case e.kind == trial.EvSend || !e.kind.IsMessage():
		case e.id != 0:
			e.id = ids[e.id]
		default:
			next++
			e.id = next
		}
	}
}

// maintKinds are the runtime's own kinds (the heartbeat detector's), which
// step lines do not carry: the nodes count them.
var maintKinds = []nodes.Kind{trial.KindPing, trial.KindPingAck}

// finish turns what the run reported into the result: the log sorted by
// time, counted into the record and emitted to the trial's sink, the
// runtime's pings from the nodes' own counts, and the checks that the
// counts reconcile.
func (lt *liveTrial) finish() (*Result, error) {
	if lt.ranks == nil || !lt.started {
		err := lt.failure()
		if err == nil {
			err = errors.New("live: the trial did not start")
		}
		return nil, err
	}
	res, l := &lt.res, &lt.log
	rec := trial.NewRecord(lt.n, lt.T, lt.det)
	slices.SortStableFunc(l.events, func(a, b entry) int { return cmp.Compare(a.at, b.at) })
	l.renumber()
	sink := lt.cfg.Events
	want := trial.KindsOfSink(sink)
	startsAll := lt.cfg.Algorithm.StartsAll
	var ev trial.Event
	for i := range l.events {
		e := &l.events[i]
		switch e.kind {
		case trial.EvStart:
			if startsAll {
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
			res.Suspicions = append(res.Suspicions, Suspicion{At: e.at, By: int(e.p), Of: int(e.q)})
		case trial.EvDecide:
			rec.Decided(int(e.p), l.ranks[e.extra], e.at)
		case trial.EvCrash:
			rec.Crashed(int(e.p), e.at, e.wasLeader)
		case trial.EvRestart:
			rec.Restarted(int(e.p))
		case trial.EvFault:
			rec.NoteFault(e.at, l.texts[e.extra])
		}
		if want.Has(e.kind) && !e.untraced {
			l.event(e, &ev)
			sink.Event(&ev)
		}
	}
	for p := range lt.n {
		sent := l.maint[p]
		if st := res.Stats[p]; st != nil {
			sent = st.Sent
		}
		for _, k := range maintKinds {
			rec.CountSends(k, sent[k.String()], int64(nodes.Message{Kind: k}.EncodedSize()))
		}
	}
	res.Lost = newCounts()
	for k, s := range res.Sent {
		if lost := s - res.Dropped[k] - res.Received[k]; lost != 0 {
			res.Lost[k] = lost
			rec.CountLost(max(lost, 0))
		}
	}
	rec.Events, rec.Quiescent, rec.End = l.steps, lt.quiescent, lt.lastCore
	rec.Alive = slices.Clone(lt.alive)
	res.Record = rec
	for _, st := range res.Stats {
		if st != nil {
			res.Refusals += st.Refused
			res.Record.AnonymousRefused += st.Anonymous
		}
	}
	lt.reconcile()
	out := *res // the trial's state can go; its result stays
	if err := lt.failure(); err != nil || lt.overBudget == nil {
		return &out, err
	}
	return &out, lt.overBudget
}

// growCounts makes room in the trial's counts for kinds registered since
// they were made (an external program's: live.ResolveExternal).
func (lt *liveTrial) growCounts() {
	res := &lt.res
	res.Sent.grow()
	res.Received.grow()
	res.Dropped.grow()
}

// reconcile checks the counts: in a run without faults every message
// written is delivered, and each node's own count of what it sent agrees
// with its step lines.
func (lt *liveTrial) reconcile() {
	res := &lt.res
	if !lt.faulty && len(res.Crashes) == 0 {
		for k, d := range res.Dropped {
			if d != 0 {
				lt.fail("%d %s messages dropped: no link was up", d, nodes.Kind(k))
			}
		}
		if !lt.quiescent && lt.cfg.Algorithm.Quorum == nil && lt.atDeadline != "" {
			lt.fail("not settled by the deadline: %s", lt.atDeadline)
		}
		if lt.quiescent {
			for k, lost := range res.Lost {
				if lost != 0 {
					lt.fail("%d %s messages written but never delivered (sent %d, dropped %d, received %d)",
						lost, nodes.Kind(k), res.Sent[k], res.Dropped[k], res.Received[k])
				}
			}
		}
	}
	for p, st := range res.Stats {
		if st == nil || lt.procs.byPos[p].inc > 0 {
			continue
		}
		// By name, as the node counts: an external program's kind may
		// share its name with a built-in one.
		steps := map[string]int64{}
		for k, c := range lt.log.nodeSent[p] {
			if c != 0 && !slices.Contains(maintKinds, nodes.Kind(k)) {
				steps[nodes.Kind(k).String()] += c
			}
		}
		for name, c := range st.Sent {
			if k, ok := nodes.KindByName(name); ok && slices.Contains(maintKinds, k) {
				continue
			}
			if got := steps[name]; got != c {
				lt.fail("node %d counted %d %s sent, its step lines %d", p, c, name, got)
			}
			delete(steps, name)
		}
		for name, got := range steps {
			lt.fail("node %d counted 0 %s sent, its step lines %d", p, name, got)
		}
	}
}
