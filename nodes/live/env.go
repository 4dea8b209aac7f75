package live

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/electbench/electbench/nodes"
)

// env is the nodes.Env a machine sees in one trial: its rank and peers,
// the harness's clock, a seeded random source, sends (counted, then
// handed to the transport or, to itself, delivered after SelfLatency),
// timers, decisions and stable storage. Everything the machine does in
// one step is recorded in cur, which the node writes as the step's line.
// A configure makes a new env; the timers, storage, counters, transport
// and report writer it points to are the node's and outlive it. Only the
// node's goroutine calls it.
type env struct {
	ranks       []nodes.Rank // by position
	self        int
	peers       []nodes.Peer
	topo        nodes.Topology
	name        string // the algorithm's, in panics
	rnd         *rand.Rand
	start       time.Time // t0 on this process's clock
	booting     bool      // see Now
	selfLatency time.Duration
	trace       bool              // step lines carry each message's ranks
	carrier     nodes.BodyCarrier // an external program's machine (nodes/external)
	cur         step
	timers      *timers
	store       *stable
	count       *counters
	net         transport
	rep         *reporter
	post        func(event) bool // to the node's goroutine
	faults      *faults          // the node's: loss on links out
	host        *host            // what a live-only algorithm's library sees (Host)
}

func (v *env) Self() nodes.Rank    { return v.ranks[v.self] }
func (v *env) Peers() []nodes.Peer { return v.peers }

// Now is the time since the harness's t0. While the machine's Start runs
// at the run's start (not a restart's) it reads 0, as in the simulator,
// although the node begins some microseconds after t0. A machine tells a
// restart by a later Now() (chubby waits out the promises a restarted
// replica may have forgotten): without this, every live chubby process
// took its first start for a restart and stood for election only after a
// lease and its margin.
func (v *env) Now() time.Duration {
	if v.booting {
		return 0
	}
	return time.Since(v.start)
}

func (v *env) Rand() *rand.Rand { return v.rnd }

func (v *env) Decide(l nodes.Rank) {
	v.cur.decide = append(v.cur.decide, l.String())
	v.cur.decideAfter = append(v.cur.decideAfter, len(v.cur.sent))
}

func (v *env) Send(to nodes.PeerID, m nodes.Message) {
	if v.store.failed() != nil {
		return // the state this message depends on was not kept: it must not leave, and the node stops
	}
	v.send(int(to), m, true)
}

// LoadStable, SaveStable and AppendStable are nodes.StableStore (stable).
func (v *env) LoadStable() []byte    { return v.store.load() }
func (v *env) SaveStable(b []byte)   { v.store.save(b) }
func (v *env) AppendStable(b []byte) { v.store.append(b) }

func (v *env) After(p nodes.PeerID) (nodes.Peer, bool) {
	n := len(v.ranks)
	if !v.topo.IsRing() || p < 0 || int(p) >= n {
		return nodes.Peer{}, false
	}
	j := (int(p) + 1) % n
	return nodes.Peer{ID: nodes.PeerID(j), Rank: v.ranks[j]}, true
}

func (v *env) SetTimer(d time.Duration, t nodes.TimerID) {
	if int(t) <= 0 || int(t) >= nodes.NumTimers() {
		panic(fmt.Sprintf("live: %s armed an unregistered timer %d", v.name, t))
	}
	v.timers.set(d, t)
}

func (v *env) CancelTimer(t nodes.TimerID) { v.timers.cancel(t) }

// begin starts recording a step: the machine is about to handle event ev
// (from or about peer).
func (v *env) begin(ev string, peer int) {
	v.cur.at = v.Now()
	v.cur.ev, v.cur.kind, v.cur.timer, v.cur.peer, v.cur.a, v.cur.b = ev, 0, 0, peer, 0, 0
	v.cur.sent = v.cur.sent[:0]
	v.cur.decide = v.cur.decide[:0]
	v.cur.decideAfter = v.cur.decideAfter[:0]
}

// send counts and sends one message; step says whether the machine sent
// it (and the step line lists it) or the runtime did (a detector's ping).
func (v *env) send(to int, m nodes.Message, step bool) {
	if to < 0 || to >= len(v.ranks) {
		panic(fmt.Sprintf("live: %s sent %s to peer %d, which does not exist", v.name, m.Kind, to))
	}
	if !m.Kind.Valid() {
		panic(fmt.Sprintf("live: %s sent an unregistered message kind %d", v.name, m.Kind))
	}
	v.count.grow()
	size := m.EncodedSize()
	var body []byte
	if m.Kind.IsExternal() {
		// An external program's message: its body, as the program wrote
		// it, travels in a SEALED-BODY frame.
		var ok bool
		if body, ok = v.carrier.Body(m); !ok {
			panic(fmt.Sprintf("live: %s sent a %s whose body it does not hold", v.name, m.Kind))
		}
		size = len(body)
	}
	v.count.sent[m.Kind]++
	v.count.bytes += int64(size)
	dropped, lost := false, false
	switch {
	case to == v.self:
		v.deliverLater(m, size, body)
	case v.faults.lost(to):
		lost = true // never written: the harness counts it sent and lost
	default:
		var err error
		if dropped, err = v.net.send(to, m, body); err != nil {
			if body == nil {
				panic(fmt.Sprintf("live: %s: %v", v.name, err))
			}
			// Too large for a frame: the program's mistake, reported.
			v.rep.report(Report{Type: "error", Error: err.Error()})
		}
	}
	if dropped {
		v.count.dropped[m.Kind]++
	}
	if step {
		s := Sent{To: to, Kind: m.Kind, Bytes: size, A: m.A, B: m.B, Dropped: dropped, Lost: lost}
		if v.trace {
			s.Rank, s.Aux = rankText(m.Rank), rankText(m.Aux)
		}
		v.cur.sent = append(v.cur.sent, s)
	}
}

// rankText is a message's rank on a traced step line: nothing for the zero
// rank, as the trace omits it.
func rankText(r nodes.Rank) string {
	if r.IsZero() {
		return ""
	}
	return r.String()
}

// deliverLater is a message to oneself: it takes the configured latency.
func (v *env) deliverLater(m nodes.Message, size int, body []byte) {
	self, epoch, post := v.self, v.net.epoch(), v.post
	time.AfterFunc(v.selfLatency, func() {
		post(event{kind: evMsg, from: self, epoch: epoch, msg: m, size: size, body: body})
	})
}

var _ nodes.Env = (*env)(nil)
