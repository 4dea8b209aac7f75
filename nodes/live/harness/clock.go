package harness

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes/live"
)

// Hosts' clocks. Nodes on several hosts (--netns, later agents) stamp
// their steps with their own host's CLOCK_MONOTONIC, which may read ahead
// of or behind the harness's (a time namespace shifts it on one machine;
// real hosts simply disagree). Before the start the harness estimates each
// host's offset, as NTP does, from round trips in both directions: it
// sends each node a sync naming t0 at its own time s, the node answers
// with its clock less t0, t, and the answer arrives at the harness's r.
// No delay is negative, so t−s ≥ offset and r−t ≥ −offset: over every
// round trip of a host's nodes the offset lies in [−min(r−t), min(t−s)],
// estimated as its middle within half its width. Each node is then told
// the run's t0 on its own host's clock (t0 plus the estimate), so that
// every time it reports is on the harness's clock within the estimate's
// error, and the record, checker and row see one clock (a node's start
// step reads 0 whatever its clock, as in the simulator: a correction
// after the fact would move it). The row's clock_error_s is the widest
// half-width.

// calibrationRounds is how many round trips each node makes: the least
// delay of a few is close to the pipe's own under a loaded host.
const calibrationRounds = 16

// hosted is a placement over several hosts whose clocks may differ from
// the harness's.
type hosted interface {
	hostOf(idx, n int) int // the host of spawn index idx of an n-node cluster
	hostCount() int
}

// HostClock is the estimate of one host's clock: how far it reads ahead
// of the harness's (Offset), within ±Error. Seen says its nodes answered:
// a host whose every node was down at the start has no estimate.
type HostClock struct {
	Offset, Error time.Duration
	Seen          bool
}

// String is "OFFSET ± ERROR", or "unseen".
func (c HostClock) String() string {
	if !c.Seen {
		return "unseen"
	}
	return fmt.Sprintf("%v ± %v", c.Offset, c.Error)
}

// oneWay are the least one-way delays between the harness and one host
// seen so far, each as the two clocks measure it: out, from the harness's
// send to the node's reading (the delay plus the offset); back, from the
// node's reading to the harness's receipt (the delay less the offset).
type oneWay struct {
	out, back time.Duration
	seen      bool
}

func (w *oneWay) add(out, back time.Duration) {
	if !w.seen {
		w.out, w.back, w.seen = out, back, true
		return
	}
	w.out, w.back = min(w.out, out), min(w.back, back)
}

// estimate is the middle of [−back, out] and its half-width.
func (w oneWay) estimate() HostClock {
	if !w.seen {
		return HostClock{}
	}
	return HostClock{Offset: (w.out - w.back) / 2, Error: (w.out + w.back) / 2, Seen: true}
}

// misestimate is added to each host's estimate (a variable: a test makes
// one host's estimate wrong by more than a message's delay, as a loose
// bound on real hosts could leave it, to see the happens-before order at
// work, causal.go).
var misestimate []time.Duration

// estimates are the hosts' clocks from their least delays, how far the
// clock of each of n spawn indices' hosts reads ahead of the harness's,
// and the widest error; seen says some host answered.
func estimates(ways []oneWay, h hosted, n int) (clocks []HostClock, skew []time.Duration, widest time.Duration, seen bool) {
	clocks = make([]HostClock, len(ways))
	for i, w := range ways {
		c := w.estimate()
		if i < len(misestimate) {
			c.Offset += misestimate[i]
		}
		clocks[i] = c
		widest, seen = max(widest, c.Error), seen || c.Seen
	}
	skew = make([]time.Duration, n)
	for idx := range n {
		skew[idx] = clocks[h.hostOf(idx, n)].Offset
	}
	return clocks, skew, widest, seen
}

// roundTrips makes calibrationRounds sync round trips with every running
// node of an n-node cluster, all nodes at once, and returns the least
// delays by host. Other reports that arrive meanwhile go to other.
func (ps *procs) roundTrips(ctx context.Context, h hosted, n int, other func(nodeReport)) ([]oneWay, error) {
	// Any reference will do: an offset is a difference of two clocks.
	t0 := live.Mono()
	ways := make([]oneWay, h.hostCount())
	for range calibrationRounds {
		sent := map[*proc]time.Duration{}
		for pos, p := range ps.byPos {
			if ps.alive[pos] && !ps.paused[pos] {
				sent[p] = time.Duration(live.Mono() - t0)
				ps.write(p, live.Command{Type: "sync", T0: t0})
			}
		}
		for len(sent) > 0 {
			rep, err := ps.next(ctx)
			if err != nil {
				return nil, err
			}
			s, asked := sent[rep.p]
			if asked && !rep.eof && rep.r.Type == "synced" {
				delete(sent, rep.p)
				t := time.Duration(rep.r.T)
				ways[h.hostOf(rep.p.idx, n)].add(t-s, time.Duration(rep.mono-t0)-t)
				continue
			}
			if asked && rep.eof {
				delete(sent, rep.p)
			}
			other(rep)
		}
	}
	return ways, nil
}

// t0Of is the run's t0 on the clock of spawn index idx's host.
func (s *schedule) t0Of(idx int) int64 {
	if s.skew == nil {
		return s.t0
	}
	return s.t0 + int64(s.skew[idx])
}

// shifter is a placement whose hosts' clocks can be shifted.
type shifter interface {
	hostCount() int
	shiftClock(host int, off time.Duration) error
}

// shiftClocks shifts host i's clock by offs[i] (Options.ClockOffsets).
func shiftClocks(p placement, offs []time.Duration) error {
	if len(offs) == 0 {
		return nil
	}
	s, ok := p.(shifter)
	if !ok {
		return errors.New("live: clock offsets shift the clocks of --netns hosts: there are none")
	}
	if len(offs) != s.hostCount() {
		return fmt.Errorf("live: %d clock offsets for %d hosts: want one per host", len(offs), s.hostCount())
	}
	for i, off := range offs {
		if err := s.shiftClock(i, off); err != nil {
			return fmt.Errorf("live: --netns host %d: %w", i, err)
		}
	}
	return nil
}
