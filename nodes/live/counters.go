package live

import "github.com/electbench/electbench/nodes"

// counters are the node's counts of one trial, for the stats line (and
// the maintenance lines): what the machine and the runtime sent, received
// and dropped by kind, the timers that fired, and what the links refused
// or closed. Only the node's goroutine touches them; the frames, counted
// on the connections' goroutines too, are the transport's (linkCounts).
type counters struct {
	sent, recv, dropped []int64 // by nodes.Kind
	fired               []int64 // by nodes.TimerID
	bytes, bytesRecv    int64
	steps               int64
	stale               int64 // messages dropped as another trial's
	refused             int64 // handshakes refused, either side
	anonymous           int64 // refused connections that proved no identity
	protocol            int64 // links closed for breaking the protocol
	rejected            int64 // frames whose tag did not verify (counted in protocol too)
}

func newCounters() *counters {
	return &counters{
		sent:    make([]int64, nodes.NumKinds()),
		recv:    make([]int64, nodes.NumKinds()),
		dropped: make([]int64, nodes.NumKinds()),
		fired:   make([]int64, nodes.NumTimers()),
	}
}

// grow makes room for kinds and timers registered since: an external
// program's are registered as it first uses them.
func (c *counters) grow() {
	if k := nodes.NumKinds(); k > len(c.sent) {
		more := k - len(c.sent)
		c.sent = append(c.sent, make([]int64, more)...)
		c.recv = append(c.recv, make([]int64, more)...)
		c.dropped = append(c.dropped, make([]int64, more)...)
	}
	if t := nodes.NumTimers(); t > len(c.fired) {
		c.fired = append(c.fired, make([]int64, t-len(c.fired))...)
	}
}

// reset zeroes every count for the next trial of a kept cluster.
func (c *counters) reset() {
	clear(c.sent)
	clear(c.recv)
	clear(c.dropped)
	clear(c.fired)
	c.bytes, c.bytesRecv, c.steps, c.stale = 0, 0, 0, 0
	c.refused, c.anonymous, c.protocol, c.rejected = 0, 0, 0, 0
}

// stats are the counts for the stats line, with the transport's.
func (c *counters) stats(lc linkCounts) Stats {
	st := Stats{
		FramesSent: map[string]int64{}, FramesRecv: map[string]int64{},
		Sent: nodes.CountsByKind(c.sent), Recv: nodes.CountsByKind(c.recv), Dropped: nodes.CountsByKind(c.dropped),
		Bytes: c.bytes, BytesRecv: c.bytesRecv, Fired: nodes.CountsByTimer(c.fired),
		Refused: c.refused, Anonymous: c.anonymous, Shed: lc.shed, ProtocolErrors: c.protocol, Rejected: c.rejected, Steps: c.steps,
		Stale: c.stale,
	}
	for k := FrameKind(1); k < numFrameKinds; k++ {
		if v := lc.sent[k]; v != 0 {
			st.FramesSent[k.String()] = v
		}
		if v := lc.recv[k]; v != 0 {
			st.FramesRecv[k.String()] = v
		}
	}
	return st
}

// maint are the counts of the runtime's own kinds (PING, PING_ACK), which
// step lines do not carry.
func (c *counters) maint() Stats {
	st := Stats{Sent: map[string]int64{}, Recv: map[string]int64{}, Dropped: map[string]int64{}}
	for _, k := range []nodes.Kind{kindPing, kindPingAck} {
		st.Sent[k.String()] = c.sent[k]
		st.Recv[k.String()] = c.recv[k]
		st.Dropped[k.String()] = c.dropped[k]
		size := int64(nodes.Message{Kind: k}.EncodedSize())
		st.Bytes += c.sent[k] * size
	}
	return st
}
