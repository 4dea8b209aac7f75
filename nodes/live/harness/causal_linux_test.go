package harness_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/trial"
)

// reorderedLine is how live.log names the events the happens-before order
// moved.
const reorderedLine = "receives reordered after their sends"

// causalRun is one raft trial at N = 6 on r's three hosts: its verdict,
// events, and what the log said of it.
type causalRun struct {
	v      check.Verdict
	events []trial.Event
	log    string
}

func runCausal(t *testing.T, r *harness.Runtime, logged func() string) causalRun {
	t.Helper()
	before := len(logged())
	cfg := config(t, "raft", random(6, 43), nil, clockT)
	cfg.Seed, cfg.Deadline = 43, 1000*clockT
	res, j := runJudged(t, r, cfg, true)
	if !res.Clocked {
		t.Fatal("no clock estimated on three hosts")
	}
	return causalRun{v: j.verdict(&res.Record), events: j.events, log: logged()[before:]}
}

// receivesFirst counts the receives emitted before their send: a receive
// whose send was not emitted ahead of it takes a number of its own, no
// send's. It fails the test if the events go back in time, or a receive
// that follows its send is placed before it.
func receivesFirst(t *testing.T, events []trial.Event) int {
	t.Helper()
	sent := map[uint64]time.Duration{}
	first := 0
	var last time.Duration
	for _, e := range events {
		if e.At < last {
			t.Fatalf("%v at %v emitted after %v", e.Kind, e.At, last)
		}
		last = e.At
		switch e.Kind {
		case trial.EvSend:
			sent[e.ID] = e.At
		case trial.EvRecv:
			s, ok := sent[e.ID]
			if !ok {
				first++
			} else if e.At < s {
				t.Fatalf("message %d received at %v, sent at %v", e.ID, e.At, s)
			}
		}
	}
	return first
}

// TestHappensBeforeAcrossHosts: live raft at N = 6 on three --netns hosts,
// the estimate of host 1's clock made 50 ms too far ahead (SetMisestimate:
// its nodes are told a t0 that much later, so they stamp every event 50 ms
// early, ten times a message's 5 ms). With the events ordered by their
// stamps alone (SetCausalOrder off), receives on host 1 precede their
// sends; ordered by happens-before, none does, the checker finds the
// trial as safe as the same seed on well-estimated clocks, and live.log
// names the receives moved. On the well-estimated clocks nothing moves.
func TestHappensBeforeAcrossHosts(t *testing.T) {
	opt := options(t)
	opt.Netns = 3
	logged := opt.Log.(interface{ String() string }).String
	r, err := harness.New(context.Background(), opt)
	if err != nil {
		t.Fatalf("--netns needs root (CI runs as root): %v", err)
	}
	defer r.Close()
	plain := runCausal(t, r, logged)
	if plain.v.Violations > 0 || plain.v.Leader == "" || strings.Contains(plain.log, reorderedLine) {
		t.Fatalf("well-estimated clocks: %d violations, leader %q, log %q", plain.v.Violations, plain.v.Leader, plain.log)
	}
	if n := receivesFirst(t, plain.events); n != 0 {
		t.Fatalf("well-estimated clocks: %d receives before their sends", n)
	}
	harness.SetMisestimate(t, []time.Duration{0, 50 * time.Millisecond, 0})
	t.Run("stamps", func(t *testing.T) {
		harness.SetCausalOrder(t, false)
		if n := receivesFirst(t, runCausal(t, r, logged).events); n == 0 {
			t.Fatal("no receive preceded its send: the misestimate did not show")
		} else {
			t.Logf("%d receives before their sends", n)
		}
	})
	t.Run("happens-before", func(t *testing.T) {
		c := runCausal(t, r, logged)
		if n := receivesFirst(t, c.events); n != 0 {
			t.Fatalf("%d receives before their sends", n)
		}
		if c.v.Violations != plain.v.Violations || c.v.Leader == "" {
			t.Errorf("%d violations, leader %q: want the well-estimated run's %d, and a leader", c.v.Violations, c.v.Leader, plain.v.Violations)
		}
		i := strings.Index(c.log, reorderedLine)
		if i < 0 {
			t.Fatalf("live.log does not name the reordering: %q", c.log)
		}
		line, _, _ := strings.Cut(c.log[strings.LastIndexByte(c.log[:i], '\n')+1:], "\n")
		t.Log(line)
	})
}
