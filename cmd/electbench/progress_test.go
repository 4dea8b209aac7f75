package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/livetest"
	"github.com/electbench/electbench/pow"
	"github.com/electbench/electbench/reports"
)

// Off a terminal: nothing for a short run, then a line at most every 10s.
func TestLogProgress(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	start := now
	e := etaAt(func(now time.Time) (time.Duration, bool) { return 100*time.Second - now.Sub(start), true })
	l := &logProgress{w: &b, total: 100, start: now, last: now, every: logEvery, now: func() time.Time { return now }, eta: e}
	for i := range 100 {
		now = now.Add(time.Second)
		r := reports.Row{Algorithm: "lcr", Trial: i, Events: 1000, Correct: true, Live: true}
		if i == 3 {
			r.Correct = false
		}
		l.Done(r)
	}
	l.Close()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 10 {
		t.Fatalf("%d lines for 100s at one line per 10s:\n%s", len(lines), b.String())
	}
	if lines[0] != "progress: 10/100 trials (10% of the estimated work), 1 failing, 10s elapsed, about 1m30s left" {
		t.Errorf("first line %q", lines[0])
	}
	// Not a terminal: a bytes.Buffer gets the plain lines.
	if _, ok := newProgress(&b, 5, e).(*logProgress); !ok {
		t.Error("a buffer got bars")
	}
}

// Off a terminal, a live trial's set-up longer than the interval gets its
// lines, saying which trial and where it is; a shorter one does not, nor
// does its end (running: the trial's row tells it).
func TestLogProgressSetup(t *testing.T) {
	var b bytes.Buffer
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	raft := reports.Row{Algorithm: "raft", Nodes: 64, Runtime: "live", Correct: true, Live: true}
	// Trial 0 takes 8 s, and trial 1 is priced as much (workloads.ETA):
	// the time left, until it is overdue by a time nobody knows.
	e := etaAt(func(now time.Time) (time.Duration, bool) {
		left := 16*time.Second - now.Sub(start)
		return max(left, 0), left > 0
	})
	l := &logProgress{w: &b, total: 2, start: now, last: now, every: logEvery, now: func() time.Time { return now }, eta: e}
	s := harness.Setup{Trial: 1, Algorithm: "raft", Variant: "default", Nodes: 64}
	trial, began := 0, time.Duration(0) // the trial setting up, from when
	at := func(d time.Duration, stage harness.Stage, done, total int) {
		now = start.Add(d)
		s.Stage, s.Done, s.Total, s.Elapsed = stage, done, total, d-began
		l.Setup(s, trial)
	}
	// Trial 0: 3 s of set-up, 5 s of running.
	at(0, harness.Starting, 0, 64)
	at(time.Second, harness.Starting, 64, 64)
	at(2*time.Second, harness.Linking, 4032, 4032)
	at(3*time.Second, harness.Running, 0, 0)
	if b.Len() != 0 {
		t.Fatalf("a set-up of 3s wrote %q", b.String())
	}
	// Trial 1 sets up for 16 s from 8 s on; the proxies were kept.
	now = start.Add(8 * time.Second)
	raft.Trial = 0
	l.Done(raft)
	s.Trial, s.Made, s.Kept = 2, 0, 4032
	trial, began = 1, 8*time.Second
	for d := time.Duration(0); d <= 16*time.Second; d += 500 * time.Millisecond {
		switch {
		case d < 4*time.Second:
			at(8*time.Second+d, harness.Starting, int(d/(time.Second/16)), 64)
		case d < 5*time.Second:
			at(8*time.Second+d, harness.Proxying, 4032, 4032)
		default:
			at(8*time.Second+d, harness.Linking, int(4032*(d-5*time.Second)/(11*time.Second)), 4032)
		}
	}
	at(24*time.Second, harness.Running, 0, 0)
	// Trial 0 took 8 s, so trial 1 is priced at 8 s: 6 s left 2 s into
	// it; 12 s into it, it is overdue by a time nobody knows.
	want := []string{
		"progress: 1/2 trials (62% of the estimated work), 0 failing, 10s elapsed, about 6s left; setting up raft n=64 trial 1: starting processes 32/64 (2s so far)",
		"progress: 1/2 trials (50% of the estimated work), 0 failing, 20s elapsed, about ? left; setting up raft n=64 trial 1: linking 2,565/4,032 (12s so far)",
	}
	if got := strings.TrimSpace(b.String()); got != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

// What a set-up line says at each stage.
func TestSetupLine(t *testing.T) {
	s := harness.Setup{Algorithm: "raft", Nodes: 64, Made: 4032, Total: 4032}
	for _, tc := range []struct {
		stage       harness.Stage
		done, trial int
		want        string
	}{
		{harness.Starting, 12, 3, "raft n=64 trial 3: starting processes 12/4,032"},
		{harness.Proxying, 0, 3, "raft n=64 trial 3: proxies (making 4,032, kept 0)"},
		{harness.Proxying, 4032, 3, "raft n=64 trial 3: proxies ready (made 4,032, kept 0)"},
		{harness.Linking, 2100, 3, "raft n=64 trial 3: linking 2,100/4,032"},
		{harness.Running, 0, 3, "raft n=64 trial 3: running"},
		{harness.Running, 0, -1, "raft n=64: running"},
	} {
		s.Stage, s.Done = tc.stage, tc.done
		if got := setupLine(s, tc.trial); got != tc.want {
			t.Errorf("%v %d: %q, want %q", tc.stage, tc.done, got, tc.want)
		}
	}
}

// The bars draw to any writer and finish, whether the run completed or
// was interrupted.
func TestBarProgress(t *testing.T) {
	for _, n := range []int{3, 1} {
		var b bytes.Buffer
		p := newBarProgress(&b, 3, etaAt(unknown))
		for range n {
			p.Done(reports.Row{Algorithm: "lcr", Nodes: 8, Correct: true, Live: true})
		}
		p.Close()
		if !strings.Contains(b.String(), "trials") || !strings.Contains(b.String(), "lcr n=8") {
			t.Errorf("%d of 3 done: bar output %q", n, b.String())
		}
	}
	// A live trial's set-up shows in place of the configuration.
	var b bytes.Buffer
	p := newBarProgress(&b, 1, etaAt(unknown))
	p.Setup(harness.Setup{Algorithm: "raft", Nodes: 64, Stage: harness.Linking, Done: 2100, Total: 4032}, 3)
	p.mu.Lock()
	current := p.current
	p.mu.Unlock()
	p.Close()
	// (Off a terminal mpb draws in its bar's width: the label is cut.)
	if current != "raft n=64 trial 3: linking 2,100/4,032" || !strings.Contains(b.String(), "raft n=64") {
		t.Errorf("set-up shown as %q; bar output %q", current, b.String())
	}
}

// TestMintProgress: off a terminal, a line every logEvery with the work
// expected of one identity and, after the first, the time left; the last
// identity always gets its line.
func TestMintProgress(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f := mintProgress(&b, pow.Params{Bits: 17, DynBits: 4}, func() time.Time { return now }, false)
	for i := 1; i <= 40; i++ {
		now = now.Add(time.Second)
		f(i, 40)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"identities: 10/40 minted (2^17 key pairs and 2^4 nonces each on average), 10s elapsed",
		"identities: 20/40 minted (2^17 key pairs and 2^4 nonces each on average), 20s elapsed, about 20s left",
		"identities: 30/40 minted (2^17 key pairs and 2^4 nonces each on average), 30s elapsed, about 10s left",
		"identities: 40/40 minted (2^17 key pairs and 2^4 nonces each on average), 40s elapsed",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
	}
}

// Off a terminal, a run whose trials take long still writes its progress
// line every so often, not only when a trial ends.
func TestLogProgressTicks(t *testing.T) {
	var b livetest.Buffer // safe for the ticker's writes
	start := time.Now()
	l := &logProgress{w: &b, total: 1, start: start, last: start, every: time.Millisecond, now: time.Now, eta: etaAt(unknown)}
	l.tick()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(b.String(), "progress: 0/1 trials") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	// While a live set-up is under way, the ticking lines say where it is.
	l.Setup(harness.Setup{Stage: harness.Linking, Algorithm: "raft", Nodes: 64, Done: 1, Total: 2}, 0)
	for strings.Count(b.String(), "setting up raft n=64 trial 0: linking 1/2") < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	l.Close()
	if !strings.Contains(b.String(), "progress: 0/1 trials (0% of the estimated work)") {
		t.Fatalf("no progress line while the trial ran: %q", b.String())
	}
	if strings.Count(b.String(), "setting up raft n=64 trial 0: linking 1/2") < 2 {
		t.Fatalf("the ticking lines do not say where the set-up is: %q", b.String())
	}
	n := len(b.String())
	time.Sleep(5 * time.Millisecond)
	if len(b.String()) != n {
		t.Fatal("progress lines after Close")
	}
}

// etaAt is an estimator that predicts by the time alone (the executor's
// workloads.ETA has tests of its own).
type etaAt func(now time.Time) (time.Duration, bool)

func (f etaAt) Remaining(now time.Time) (time.Duration, bool) { return f(now) }

// unknown is an estimator that never knows.
func unknown(time.Time) (time.Duration, bool) { return 0, false }
