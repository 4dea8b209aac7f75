package workloads

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// execute starts the run at t0 and drives it until it settles, its deadline
// passes or ctx ends.
func (lt *liveTrial) execute(ctx context.Context) {
	n := lt.n
	// Faults at time 0 are in place before anyone starts.
	for i := range lt.r.opt.Faults {
		if lt.r.opt.Faults[i].At <= 0 {
			lt.inject(ctx, &lt.r.opt.Faults[i])
		}
	}
	lt.chaosArm(ctx, true)
	lt.t0, lt.start = live.Mono(), time.Now()
	lt.started = true
	for p := range n {
		if lt.alive[p] {
			lt.send(lt.procs[p], live.Command{Type: "start", T0: lt.t0})
		}
	}
	// Crashes at the start: exactly the initiators (everyone, for
	// algorithms that all start at once) suspect them at time 0, before
	// they initiate; everyone else after D (perfect detector).
	for _, c := range lt.res.Crashes {
		lt.detect(c.Pos, true)
	}
	for _, p := range lt.initiators {
		if lt.alive[p] {
			lt.send(lt.procs[p], live.Command{Type: "initiate"})
		}
	}
	lt.chaosArm(ctx, false)
	for i, c := range lt.crashes {
		switch c.When {
		case trial.AtTime:
			lt.after(c.At, func() { lt.crash(lt.target(c.Pos), false) })
		case trial.AfterMessages:
			lt.afterMsgs = append(lt.afterMsgs, i)
		case trial.LeaderElected:
			lt.onElected = append(lt.onElected, i)
		}
	}
	for i := range lt.r.opt.Faults {
		f := &lt.r.opt.Faults[i]
		if f.At > 0 {
			lt.after(f.At, func() { lt.inject(ctx, f) })
		}
		lt.faulty = true
	}
	deadline := lt.s.Deadline
	if deadline <= 0 {
		deadline = trial.DefaultDeadline(n, lt.T)
	}
	stop := time.NewTimer(deadline)
	defer stop.Stop()
	recheck := time.NewTimer(time.Hour)
	defer recheck.Stop()
	for {
		if lt.settled() {
			lt.quiescent = true
			return
		}
		if lt.quiet > 0 || lt.anyLossy {
			recheck.Reset(max(lt.lastCore+lt.quietPeriod()-lt.now(), time.Millisecond))
		}
		select {
		case rep := <-lt.reports:
			lt.handle(rep)
		case f := <-lt.actions:
			lt.pending--
			f()
		case <-recheck.C:
		case <-stop.C:
			lt.atDeadline = lt.unsettled()
			return
		case <-ctx.Done():
			lt.fail("interrupted: %v", ctx.Err())
			return
		}
	}
}

// after runs f on the trial's goroutine d after t0, counting it as pending
// until then.
func (lt *liveTrial) after(d time.Duration, f func()) {
	lt.pending++
	lt.timers = append(lt.timers, time.AfterFunc(max(d-lt.now(), 0), func() {
		select {
		case lt.actions <- f:
		case <-lt.done:
		}
	}))
}

// quietPeriod is how long nothing may happen before a run whose messages
// may be lost, or whose detector could still notice something, counts as
// settled.
func (lt *liveTrial) quietPeriod() time.Duration {
	q := lt.quiet
	if lt.anyLossy {
		q = max(q, 4*lt.T+20*time.Millisecond)
	}
	return q
}

// settled reports whether the run has come to rest: no harness action
// pending, no timer armed at a running process, every message written on a
// reliable link to a process that will run again delivered, and, for runs
// that may lose messages or run heartbeats, a quiet period behind it.
func (lt *liveTrial) settled() bool {
	if lt.pending > 0 || len(lt.restarting) > 0 || lt.busyProcs > 0 || lt.unsettledLinks > 0 {
		return false
	}
	q := lt.quietPeriod()
	return q == 0 || lt.now()-lt.lastCore >= q
}

// handle processes one line (or the end) of a node.
func (lt *liveTrial) handle(rep nodeReport) {
	p := rep.p
	current := p.pos >= 0 && lt.procs[p.pos] == p
	if rep.eof {
		if !p.killed && !p.stopped && current && lt.alive[p.pos] {
			lt.fail("node %d exited unexpectedly: %s", p.pos, p.tail.String())
			lt.crash(p.pos, false)
		}
		return
	}
	r := rep.r
	switch r.Type {
	case "linked":
		p.linked = true
		if lt.restarting[p.pos] && current {
			delete(lt.restarting, p.pos)
			lt.gone[p.pos], lt.alive[p.pos] = false, true
			lt.recount()
			// A fresh machine knows no leader: it must decide again.
			lt.decisions[p.pos] = trial.Decision{}
			lt.timeline = append(lt.timeline, tlEntry{at: lt.now(), seq: len(lt.timeline), kind: tlRestart, p: p.pos})
			lt.send(p, live.Command{Type: "start", T0: lt.t0})
		}
	case "refused":
		// A refusal of the reporter by its peer names nobody new: the peer
		// reports its own side of it.
		if !r.ByPeer && r.Peer >= 0 && r.Peer < lt.n {
			lt.refused[r.Peer] = true
		}
	case "step":
		if current {
			lt.step(p.pos, &r)
		}
	case "maint":
		if current && r.Stats != nil {
			lt.maint[p.pos] = r.Stats.Sent
		}
	case "stats":
		p.stopped = true
		if current {
			lt.res.Stats[p.pos] = r.Stats
		}
	case "error":
		lt.fail("node %d: %s", p.pos, r.Error)
	case "hello":
		if lt.restarting[p.pos] && current {
			lt.rewire(p)
		}
	}
}

// step accounts for one event a machine handled.
func (lt *liveTrial) step(p int, r *live.Report) {
	if lt.nodeSent[p] == nil {
		lt.nodeSent[p] = map[string]int64{}
	}
	for _, m := range r.Sent {
		lt.nodeSent[p][m.Kind]++ // reconciled with the node's own count
	}
	if lt.stopping {
		// Once teardown begins the run is over: what nodes still do while
		// their peers stop (a perpetual algorithm's heartbeats to a peer
		// already gone) is not part of it.
		return
	}
	n := lt.n
	at := time.Duration(r.T)
	lt.steps++
	lt.lastCore = max(lt.lastCore, lt.now())
	lt.proc(p, func() {
		lt.armed[p] = r.Armed
		if r.Ev == "start" || r.Ev == "initiate" || r.Ev == "suspect" && lt.det.Kind != "heartbeat" {
			lt.expect[p]--
		}
	})
	initiated := lt.firstInit >= 0
	switch r.Ev {
	case "start":
		if lt.t.Algo.Alg.StartsAll && (lt.firstInit < 0 || at < lt.firstInit) {
			lt.firstInit = at
		}
	case "initiate":
		if lt.firstInit < 0 || at < lt.firstInit {
			lt.firstInit = at
		}
	case "recv":
		k, ok := nodes.KindByName(r.Kind)
		if r.From >= 0 && r.From < n {
			k := r.From*n + p
			lt.link(k, func() { lt.recvLink[k]++ })
			lt.res.DeliveredFrom[r.From]++
		}
		lt.res.Received[r.Kind]++
		if ok && k.IsElection() {
			lt.lastElection = max(lt.lastElection, at)
		}
		if ok && lt.t.Algo.Alg.Quorum != nil {
			lt.timeline = append(lt.timeline, tlEntry{at: at, seq: len(lt.timeline), kind: tlDelivered, p: p, from: r.From,
				msg: nodes.Message{Kind: k, A: r.A, B: r.B}})
		}
	case "timer":
		lt.fired[r.Timer]++
	case "suspect":
		lt.fired["SUSPECT"]++
		lt.res.Suspicions = append(lt.res.Suspicions, LiveSuspicion{At: at, By: p, Of: r.Peer})
		for i := range lt.res.Crashes {
			c := &lt.res.Crashes[i]
			if c.Pos == r.Peer && c.FirstSuspicion < 0 && at >= c.At {
				c.FirstSuspicion = at
			}
		}
	}
	if !initiated && lt.firstInit >= 0 && len(lt.onElectionStart) > 0 {
		lt.chaosElectionStart()
	}
	for _, m := range r.Sent {
		lt.res.Sent[m.Kind]++
		lt.bytes += int64(m.Bytes)
		if m.Dropped {
			lt.res.Dropped[m.Kind]++
		} else if m.To >= 0 && m.To < n {
			k := p*n + m.To
			lt.link(k, func() { lt.sentLink[k]++ })
		}
		k, ok := nodes.KindByName(m.Kind)
		if ok && lt.t.Algo.Alg.Quorum != nil {
			lt.timeline = append(lt.timeline, tlEntry{at: at, seq: len(lt.timeline), kind: tlSent, p: p,
				msg: nodes.Message{Kind: k, A: m.A, B: m.B}})
		}
		if ok && k.IsElection() {
			lt.elected++
			if len(lt.afterMsgs) > 0 {
				lt.checkMessageTriggers()
			}
			if len(lt.onMessages) > 0 {
				lt.chaosMessages()
			}
		}
	}
	for _, d := range r.Decide {
		leader, err := nodes.ParseRank(d)
		if err != nil {
			lt.fail("node %d decided %q: %v", p, d, err)
			continue
		}
		dec := &lt.decisions[p]
		dec.Leader, dec.At = leader, at
		dec.Count++
		lt.lastLeader = leader
		lt.timeline = append(lt.timeline, tlEntry{at: at, seq: len(lt.timeline), kind: tlDecide, p: p, leader: leader})
		if len(lt.onElected) > 0 {
			for _, i := range lt.onElected {
				lt.crash(lt.target(lt.crashes[i].Pos), false)
			}
			lt.onElected = nil
		}
		if len(lt.onDecided) > 0 {
			lt.chaosDecided()
		}
	}
	if r.Phase != "" {
		lt.timeline = append(lt.timeline, tlEntry{at: at, seq: len(lt.timeline), kind: tlPhase, p: p, phase: r.Phase})
	}
}

func (lt *liveTrial) checkMessageTriggers() {
	kept := lt.afterMsgs[:0]
	for _, i := range lt.afterMsgs {
		if lt.elected >= lt.crashes[i].K {
			lt.crash(lt.target(lt.crashes[i].Pos), false)
		} else {
			kept = append(kept, i)
		}
	}
	lt.afterMsgs = kept
}

// target resolves trial.CurrentLeader: whom the latest decision named, or the
// highest live process if nobody has decided.
func (lt *liveTrial) target(pos int) int {
	if pos != trial.CurrentLeader {
		return pos
	}
	if !lt.lastLeader.IsZero() {
		if p := slices.Index(lt.ranks, lt.lastLeader); p >= 0 {
			return p
		}
	}
	best := -1
	for p := range lt.n {
		if lt.alive[p] && (best < 0 || lt.ranks[best].Less(lt.ranks[p])) {
			best = p
		}
	}
	return max(best, 0)
}

// crash SIGKILLs position p's process and lets the detector notice.
func (lt *liveTrial) crash(p int, atStart bool) {
	if !lt.alive[p] {
		return
	}
	lt.down(p)
	if !atStart {
		lt.detect(p, false)
	}
}

// down SIGKILLs live position p's process and records the crash; the
// detector is told separately.
func (lt *liveTrial) down(p int) {
	wasLeader := lt.target(trial.CurrentLeader) == p
	at := lt.now()
	lt.kill(lt.procs[p])
	lt.alive[p], lt.gone[p] = false, true
	lt.recount()
	lt.res.Crashes = append(lt.res.Crashes, trial.CrashRecord{Pos: p, At: at, WasLeader: wasLeader, FirstSuspicion: -1})
	lt.timeline = append(lt.timeline, tlEntry{at: at, seq: len(lt.timeline), kind: tlCrash, p: p})
	if lt.started {
		lt.faulty = true
	}
}

// detect is the perfect detector, with the harness as its oracle: every
// live process is told D after the crash; at the start, the initiators are
// told at once. A heartbeat detector needs no help.
func (lt *liveTrial) detect(c int, atStart bool) {
	if lt.det.Kind == "heartbeat" {
		return
	}
	now := make([]bool, lt.n)
	if atStart {
		for _, p := range lt.initiators {
			now[p] = true
		}
		if lt.t.Algo.Alg.StartsAll {
			for p := range now {
				now[p] = true
			}
		}
	}
	at := lt.now()
	for q := range lt.n {
		if q == c || !lt.alive[q] {
			continue
		}
		if now[q] {
			lt.send(lt.procs[q], live.Command{Type: "suspect", Peer: c})
			continue
		}
		lt.after(at+lt.det.D, func() {
			if lt.alive[q] {
				lt.send(lt.procs[q], live.Command{Type: "suspect", Peer: c})
			}
		})
	}
}

func (lt *liveTrial) kill(p *proc) {
	if p.killed {
		return
	}
	p.killed = true
	killGroup(p.pid)
}

// inject applies one fault and schedules its end.
func (lt *liveTrial) inject(ctx context.Context, f *LiveFault) {
	lt.faulty = true
	switch f.Kind {
	case "pause":
		for _, p := range f.Procs {
			if p < 0 || p >= lt.n || !lt.alive[p] {
				continue
			}
			if err := pauseGroup(lt.procs[p].pid); err != nil {
				lt.fail("pausing node %d: %v", p, err)
				continue
			}
			lt.paused[p] = true
			if f.For <= 0 {
				lt.gone[p] = true
			}
		}
		lt.recount()
		if f.For > 0 {
			lt.after(f.At+f.For, func() {
				for _, p := range f.Procs {
					if p >= 0 && p < lt.n && lt.paused[p] {
						resumeGroup(lt.procs[p].pid)
						lt.paused[p] = false
					}
				}
			})
		}
	case "restart":
		for _, p := range f.Procs {
			if p < 0 || p >= lt.n || !lt.alive[p] {
				continue
			}
			lt.crash(p, false)
			lt.restarting[p] = true
			lt.after(f.At+f.For, func() { lt.respawn(p) })
		}
	case "partition":
		group := make([]int, lt.n)
		for i := range group {
			group[i] = -1
		}
		for g, ps := range f.Groups {
			for _, p := range ps {
				if p >= 0 && p < lt.n {
					group[p] = g
				}
			}
		}
		var cut [][2]int
		for _, l := range lt.links {
			if group[l[0]] != group[l[1]] {
				cut = append(cut, l)
				lt.lossy[l[0]*lt.n+l[1]] = true
			}
		}
		lt.recount()
		lt.toxic(ctx, "partition", cut, func(ctx context.Context, l [2]int) error {
			if f.Silent {
				return lt.r.client.Cut(ctx, lt.proxy[l])
			}
			return lt.r.client.SetEnabled(ctx, lt.proxy[l], false)
		})
		if f.For > 0 {
			lt.after(f.At+f.For, func() {
				lt.toxic(ctx, "heal", cut, func(ctx context.Context, l [2]int) error {
					if f.Silent {
						return lt.r.client.Heal(ctx, lt.proxy[l])
					}
					return lt.r.client.SetEnabled(ctx, lt.proxy[l], true)
				})
			})
		}
	case "latency":
		var links [][2]int
		for _, l := range f.Links {
			if _, ok := lt.proxy[l]; ok {
				links = append(links, l)
			}
		}
		lt.toxic(ctx, "latency", links, func(ctx context.Context, l [2]int) error {
			return lt.r.client.SetLatency(ctx, lt.proxy[l], f.Latency, f.Jitter)
		})
		if f.For > 0 {
			lt.after(f.At+f.For, func() {
				lt.toxic(ctx, "restore latency", links, func(ctx context.Context, l [2]int) error {
					return lt.r.client.SetLatency(ctx, lt.proxy[l], lt.latency[l], lt.jitter[l])
				})
			})
		}
	default:
		lt.fail("unknown live fault %q", f.Kind)
	}
}

func (lt *liveTrial) toxic(ctx context.Context, what string, links [][2]int, f func(context.Context, [2]int) error) {
	if err := lt.parallel(ctx, links, f); err != nil {
		lt.fail("%s: %v", what, err)
	}
}

// respawn starts position p again with its identity; rewire and the
// "linked" report finish the job.
func (lt *liveTrial) respawn(p int) {
	old := lt.procs[p]
	np, err := lt.spawn(old.idx, old.dir, "")
	if err != nil {
		lt.fail("restarting node %d: %v", p, err)
		delete(lt.restarting, p)
		return
	}
	np.pos, np.inc, np.ident = p, old.inc+1, old.ident
	lt.procs[p] = np
}

// rewire points the proxies into a restarted process at its new address,
// forgets what was lost with the old one, and configures it.
func (lt *liveTrial) rewire(p *proc) {
	ctx, cancel := context.WithTimeout(context.Background(), lt.setupTimeout())
	defer cancel()
	var into [][2]int
	for _, l := range lt.links {
		if l[1] == p.pos {
			into = append(into, l)
		}
	}
	lt.toxic(ctx, "rewire", into, func(ctx context.Context, l [2]int) error {
		return lt.r.client.SetUpstream(ctx, lt.proxy[l], p.addr)
	})
	n := lt.n
	for i := range n {
		lt.recvLink[i*n+p.pos] = lt.sentLink[i*n+p.pos]
	}
	lt.armed[p.pos], lt.expect[p.pos] = 0, 0
	lt.recount()
	lt.configure(p)
}

// teardown releases everything: processes (stopped politely if they run,
// killed in any case), proxies, files. It runs on every exit path.
func (lt *liveTrial) teardown() {
	lt.stopping = true
	running := 0
	for pos, p := range lt.procs {
		if p != nil && !p.killed && lt.alive != nil && lt.alive[pos] {
			if lt.paused[pos] {
				resumeGroup(p.pid)
			}
			lt.send(p, live.Command{Type: "stop"})
			running++
		}
	}
	// Collect the stats of the nodes asked to stop, within a bound.
	wait := time.NewTimer(5 * time.Second)
	for running > 0 {
		select {
		case rep := <-lt.reports:
			lt.handle(rep)
			if rep.eof && !rep.p.killed {
				running--
			}
		case <-wait.C:
			running = 0
		}
	}
	wait.Stop()
	for _, p := range lt.all {
		if !p.killed {
			p.killed = true
			killGroup(p.pid)
		}
		p.stdin.Close()
	}
	for _, t := range lt.timers {
		t.Stop()
	}
	close(lt.done) // unblocks readers and pending actions
	lt.wg.Wait()
	if len(lt.links) > 0 {
		// A context of its own: the run's may be cancelled (Ctrl-C), and
		// the proxies must go all the same.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		lt.toxic(ctx, "removing proxies", lt.links, func(ctx context.Context, l [2]int) error {
			return lt.r.client.Delete(ctx, lt.proxy[l])
		})
		cancel()
	}
	if lt.dir != "" {
		removeAll(lt.dir)
	}
}

// finish builds the row from what the run reported.
func (lt *liveTrial) finish() {
	row := &lt.res.Row
	a := lt.t.Algo
	if lt.ranks == nil || !lt.started {
		row.Correct, row.Live = false, false
		row.Error = oneLine("live: " + strings.Join(lt.errs, "; "))
		return
	}
	end := lt.lastCore
	// Feed the checker in time order (nodes report on their own pipes).
	checker, err := NewChecker(&trial.Config{Algorithm: a.Alg, Variant: a.Variant, Params: a.Params, Ranks: lt.ranks}, lt.tAlg)
	if err != nil {
		lt.fail("%v", err)
		checker = check.New(lt.ranks)
	}
	slices.SortFunc(lt.timeline, func(x, y tlEntry) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	for _, e := range lt.timeline {
		switch e.kind {
		case tlDecide:
			checker.Decided(e.at, e.p, e.leader)
		case tlPhase:
			checker.Phase(e.at, e.p, e.phase)
		case tlCrash:
			checker.Crashed(e.at, e.p)
		case tlRestart:
			checker.Restarted(e.at, e.p)
		case tlSent:
			checker.Sent(e.at, e.p, e.msg)
		case tlDelivered:
			checker.Delivered(e.at, e.p, e.from, e.msg)
		}
	}
	lt.res.Decisions = lt.decisions

	// The record: the machines' messages from the step lines, the
	// runtime's pings from the nodes' own counts.
	rec := trial.NewRecord(lt.n, lt.T, lt.det)
	rec.Decisions = lt.decisions
	rec.FirstInitiation, rec.LastElection = lt.firstInit, lt.lastElection
	rec.Crashes, rec.Faults, rec.Events = lt.res.Crashes, lt.faultLog, lt.steps
	rec.Quiescent, rec.End = lt.quiescent, end
	for k, c := range lt.res.Sent {
		kind := mustKind(k)
		rec.Sent[kind] += c
		if kind.IsElection() {
			rec.Messages += c
		}
	}
	rec.Bytes = lt.bytes
	for p := range lt.n {
		sent := lt.maint[p]
		if st := lt.res.Stats[p]; st != nil {
			sent = st.Sent
		}
		for _, k := range maintKinds {
			rec.Sent[k] += sent[k.String()]
			rec.Bytes += sent[k.String()] * int64(nodes.Message{Kind: k}.EncodedSize())
		}
	}
	for k, c := range lt.fired {
		rec.Fired[mustTimer(k)] += c
		rec.Timeouts += c
	}
	for k, s := range lt.res.Sent {
		if lost := s - lt.res.Dropped[k] - lt.res.Received[k]; lost != 0 {
			lt.res.Lost[k] = lost
		}
	}
	for _, p := range lt.res.Stats {
		if p != nil {
			lt.res.Refusals += p.Refused
		}
	}
	lt.reconcile()

	o := outcome{rec: &rec, verdict: checker.Finish(lt.decisions, lt.quiescent, end),
		ranks: lt.ranks, initiators: lt.initiators, faulty: lt.faulty}
	for _, c := range lt.res.Crashes {
		if c.At == 0 && !lt.faulty {
			o.crashedAtStart = append(o.crashedAtStart, c.Pos)
		} else {
			o.faulty = true
		}
	}
	if len(lt.errs) > 0 {
		o.failure = oneLine("live: " + strings.Join(lt.errs, "; "))
	}
	lt.t.fillRow(row, o)
}

// reconcile checks the counts: in a run without faults every message
// written is delivered, and each node's own count of what it sent agrees
// with its step lines.
func (lt *liveTrial) reconcile() {
	if !lt.faulty && len(lt.res.Crashes) == 0 {
		for k, d := range lt.res.Dropped {
			lt.fail("%d %s messages dropped: no link was up", d, k)
		}
		if !lt.quiescent && lt.t.Algo.Alg.Quorum == nil && lt.atDeadline != "" {
			lt.fail("not settled by the deadline: %s", lt.atDeadline)
		}
		if lt.quiescent {
			for k, lost := range lt.res.Lost {
				lt.fail("%d %s messages written but never delivered (sent %d, dropped %d, received %d)",
					lost, k, lt.res.Sent[k], lt.res.Dropped[k], lt.res.Received[k])
			}
		}
	}
	for p, st := range lt.res.Stats {
		if st == nil || lt.procs[p].inc > 0 {
			continue
		}
		for k, c := range st.Sent {
			if isMaint(k) {
				continue
			}
			if got := lt.nodeSent[p][k]; got != c {
				lt.fail("node %d counted %d %s sent, its step lines %d", p, c, k, got)
			}
		}
	}
}

// maintKinds are the runtime's own kinds (the heartbeat detector's), which
// step lines do not carry.
var maintKinds = []nodes.Kind{mustKind("PING"), mustKind("PING_ACK")}

func mustKind(name string) nodes.Kind {
	k, ok := nodes.KindByName(name)
	if !ok {
		panic("workloads: kind " + name + " is not registered")
	}
	return k
}

func mustTimer(name string) nodes.TimerID {
	t, ok := nodes.TimerByName(name)
	if !ok {
		panic("workloads: timer " + name + " is not registered")
	}
	return t
}

func isMaint(kind string) bool { return kind == "PING" || kind == "PING_ACK" }

// unsettled says what kept a run from settling: messages in flight, timers
// armed, commands unanswered.
func (lt *liveTrial) unsettled() string {
	var what []string
	n := lt.n
	for i := range n {
		for j := range n {
			if k := i*n + j; !lt.gone[j] && lt.sentLink[k] != lt.recvLink[k] {
				what = append(what, fmt.Sprintf("%d→%d: %d written, %d delivered", i, j, lt.sentLink[k], lt.recvLink[k]))
			}
		}
	}
	for p := range n {
		if !lt.gone[p] && (lt.armed[p] > 0 || lt.expect[p] > 0) {
			what = append(what, fmt.Sprintf("process %d: %d timers armed, %d commands unanswered", p, lt.armed[p], lt.expect[p]))
		}
	}
	if lt.pending > 0 {
		what = append(what, fmt.Sprintf("%d harness actions pending", lt.pending))
	}
	if len(what) == 0 {
		return "quiet, but not for long enough"
	}
	return strings.Join(what, "; ")
}
