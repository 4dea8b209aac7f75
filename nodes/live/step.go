package live

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// The machine's events: each is one step, which the machine handles with
// the trial's env and the node writes as one step line.

// begin starts the machine at the harness's t0.
func (n *node) begin(t0 int64, restart bool) {
	n.env.start = time.Now().Add(-time.Duration(n.o.Mono() - t0))
	n.started = true
	n.net.start()
	n.env.booting = !restart
	n.env.host.start = n.env.start
	n.stepBegin("start", 0)
	n.machine.Start(n.env)
	n.stepEnd()
	n.env.booting = false
	if n.det = newDetector(n.cfg.Detector, len(n.env.ranks)); n.det != nil {
		n.heartbeat() // the first tick is at the start, as in the simulator
		n.det.startTicking()
	}
	for _, e := range n.early {
		n.deliver(e)
	}
	n.early = nil
}

func (n *node) stepBegin(ev string, peer int) { n.env.begin(ev, peer) }

func (n *node) stepEnd() {
	cur := &n.env.cur
	n.count.steps++
	cur.armed = n.timers.armed
	cur.phase = ""
	if n.phased != nil {
		cur.phase = n.phased.Phase()
	}
	n.rep.step(cur)
	if f, ok := n.machine.(nodes.Fallible); ok && !n.failed {
		if err := f.Err(); err != nil {
			// An external program misbehaved: the harness fails the trial.
			n.failed = true
			n.rep.report(Report{Type: "error", Error: err.Error()})
		}
	}
}

func (n *node) deliver(e event) {
	k := e.msg.Kind
	if e.body != nil {
		if n.env.carrier == nil {
			n.logf("peer %d sent an external program's %s to a node that runs none", e.from, k)
			return
		}
		e.msg = n.env.carrier.Adopt(k, e.body)
	}
	n.count.grow()
	n.count.recv[k]++
	n.count.bytesRecv += int64(e.size)
	switch k {
	case kindPing:
		n.env.send(e.from, nodes.Message{Kind: kindPingAck}, false)
		return
	case kindPingAck:
		if n.det != nil {
			n.det.heard(e.from, n.env.Now())
		}
		return
	}
	n.stepBegin("recv", e.from)
	n.env.cur.kind, n.env.cur.a, n.env.cur.b = k, e.msg.A, e.msg.B
	n.machine.Receive(n.env, nodes.PeerID(e.from), e.msg)
	n.stepEnd()
}

func (n *node) fire(t nodes.TimerID, gen uint64) {
	if !n.timers.expire(t, gen) {
		return
	}
	n.count.grow()
	n.count.fired[t]++
	n.stepBegin("timer", 0)
	n.env.cur.timer = t
	n.machine.Timeout(n.env, t)
	n.stepEnd()
}

func (n *node) initiate() {
	n.stepBegin("initiate", 0)
	n.machine.Initiate(n.env)
	n.stepEnd()
}

// suspectStep has the machine suspect p: now, or, on a slow node, once
// the steps queued before it and its own service are done.
func (n *node) suspectStep(p int) {
	if !n.faults.hold(event{kind: evCmd, cmd: Command{Type: "suspect", Peer: p}}) {
		n.suspect(p)
	}
}

func (n *node) suspect(p int) {
	n.count.fired[timerSusp]++
	n.stepBegin("suspect", p)
	n.machine.Suspect(n.env, nodes.PeerID(p))
	n.stepEnd()
}

// heartbeat is one detector tick, as in the simulator: suspect every peer
// silent for longer than τ, then ping every peer.
func (n *node) heartbeat() {
	n.det.expire(n.env.Now(), n.env.self, n.suspectStep)
	for q := range len(n.env.ranks) {
		if q != n.env.self {
			n.env.send(q, nodes.Message{Kind: kindPing}, false)
		}
	}
	st := n.count.maint()
	n.rep.report(Report{Type: "maint", Stats: &st})
}
