package live

import "time"

// detector is the node-side heartbeat failure detector (Config.Detector of
// kind "heartbeat"), the simulator's: every P the node pings every peer,
// and at each tick suspects a peer it has heard no PING_ACK from for longer
// than τ. The node's goroutine runs it: the ticker's channel is one of
// those its loop selects on.
type detector struct {
	p, tau    time.Duration
	ticker    *time.Ticker    // nil until the first tick has run
	lastHeard []time.Duration // by position: the last PING_ACK
	suspected []bool          // by position: suspected once, for good
}

// newDetector is the detector d configures for n processes, or nil when d
// leaves suspicions to the harness.
func newDetector(d Detector, n int) *detector {
	if d.Kind != "heartbeat" || d.P <= 0 {
		return nil
	}
	return &detector{p: d.P, tau: d.Tau, lastHeard: make([]time.Duration, n), suspected: make([]bool, n)}
}

// tick is nil before ticking starts, and never ready then.
func (d *detector) tick() <-chan time.Time {
	if d == nil || d.ticker == nil {
		return nil
	}
	return d.ticker.C
}

// startTicking starts the ticks after the first, which the node runs at
// the start, as in the simulator.
func (d *detector) startTicking() { d.ticker = time.NewTicker(d.p) }

// heard notes a PING_ACK from q at now.
func (d *detector) heard(q int, now time.Duration) { d.lastHeard[q] = now }

// expire calls suspect, in position order, for every peer other than self
// newly silent for longer than τ at now.
func (d *detector) expire(now time.Duration, self int, suspect func(q int)) {
	for q := range d.lastHeard {
		if q == self || d.suspected[q] {
			continue
		}
		if now-d.lastHeard[q] > d.tau {
			d.suspected[q] = true
			suspect(q)
		}
	}
}

func (d *detector) stop() {
	if d != nil && d.ticker != nil {
		d.ticker.Stop()
	}
}
