//go:build unix

package harness_test

import (
	"context"
	"errors"
	"math"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/trial"
)

// aliveSink counts the events it gets while any node process of the trial
// still exists, and checks that they come in time order.
type aliveSink struct {
	pids          []int
	events, early int
	last          time.Duration
	disorder      string
}

func (s *aliveSink) Event(e *trial.Event) {
	s.events++
	if e.At < s.last && s.disorder == "" {
		s.disorder = e.Kind.String() + " at " + e.At.String() + " after " + s.last.String()
	}
	s.last = max(s.last, e.At)
	for _, pid := range s.pids {
		if syscall.Kill(pid, 0) == nil {
			s.early++
			return
		}
	}
}

// Issue 22: a live trial's events stream to its sink (a trace on disk) as
// the trial runs, in time order, rather than being held until it ends. The
// harness keeps at most a few events (SetHoldEvents) before it asks the
// nodes for their clocks, so most events must reach the sink while the
// node processes still run; held until the end, none would (teardown reaps
// every process before the trial returns).
func TestLiveEventsStream(t *testing.T) {
	harness.SetHoldEvents(t, 8)
	sink := &aliveSink{}
	opt := options(t)
	opt.Observe = func(i harness.Info) { sink.pids = i.PIDs }
	r := runtime(t, opt)
	ranks := random(8, 3)
	cfg := config(t, "chang-roberts", ranks, []int{successor(ranks, highest(ranks))}, 2*time.Millisecond)
	cfg.Events = sink
	res, err := r.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Messages != 3*8-1 || res.Delays.Count != 3*8-1 {
		t.Fatalf("%d messages, %d delays measured: want 3N−1 = 23 of each", res.Messages, res.Delays.Count)
	}
	if sink.disorder != "" {
		t.Fatalf("events out of time order: %s", sink.disorder)
	}
	if sink.events < 2*23 || 2*sink.early < sink.events {
		t.Fatalf("%d of %d events reached the sink while the nodes ran: want most of them", sink.early, sink.events)
	}
}

// Issue 21: the in-flight budget bounds a live trial too — messages
// written and not yet delivered, as the step lines tell — and stops it as
// the events budget does. Chang–Roberts with every process initiating puts
// N messages in flight at once.
func TestLiveInFlightBudget(t *testing.T) {
	r := runtime(t, options(t))
	cfg := config(t, "chang-roberts", ascending(6), []int{0, 1, 2, 3, 4, 5}, 20*time.Millisecond)
	cfg.Budget = trial.Budget{MaxInFlight: 2}
	res, err := r.Run(context.Background(), cfg)
	var be *trial.BudgetError
	if !errors.As(err, &be) || be.What != trial.BudgetInFlight || be.Limit != 2 || be.Pending <= 2 {
		t.Fatalf("error %v, want the in-flight budget passed", err)
	}
	if res == nil || res.Quiescent || res.Messages < 3 {
		t.Fatalf("record %+v: want the counts at the stop, not quiescent", res)
	}
}

// Issue 17: live Chang–Roberts with one initiator (the successor of the
// maximum) at 5 ms, in units of the T the network actually gave — the
// mean one-way delay of its election messages, measured on the host's one
// monotonic clock — takes 3N−1 T to turn around, within 3%, however far
// the loaded host pushed the delays from the configured 5 ms.
func TestCalibratedTurnaround(t *testing.T) {
	r := runtime(t, options(t))
	for _, n := range []int{16, 64} {
		ranks := random(n, uint64(n))
		cfg := config(t, "chang-roberts", ranks, []int{successor(ranks, highest(ranks))}, 5*time.Millisecond)
		res, err := r.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		want := float64(3*n - 1)
		if res.Delays.Count != int64(3*n-1) {
			t.Fatalf("n=%d: %d delays measured, want 3N−1 = %v", n, res.Delays.Count, want)
		}
		mean := res.Delays.Mean()
		got := float64(res.LastElection-res.FirstInitiation) / float64(mean)
		t.Logf("n=%d: turnaround %.3f measured T (mean %v, p99 %v; configured 5ms)", n, got, mean, res.Delays.Quantile(0.99))
		if math.Abs(got-want) > 0.03*want {
			t.Fatalf("n=%d: turnaround %.3f measured T, want 3N−1 = %v within 3%%", n, got, want)
		}
	}
}
