package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/hunt"
)

// A hunt's progress: off a terminal, nothing for a short search, then a
// line at most every 10s with trials, states and the best candidate; on a
// terminal one line redrawn, finished by a newline at the end.
func TestHuntProgress(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	var b bytes.Buffer
	p := huntProgress(&b, 1000, clock, false)
	for i := range 40 {
		now = now.Add(time.Second)
		p(hunt.Stats{Trials: 8 * (i + 1), States: 3 * i, Best: "raft N=5, 2 faults: 31 states"})
	}
	p(hunt.Stats{Trials: -1})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines for 40s at one per 10s:\n%s", len(lines), b.String())
	}
	if lines[0] != "hunt: 80/1000 trials, 27 states, 10s elapsed; best raft N=5, 2 faults: 31 states" {
		t.Errorf("first line %q", lines[0])
	}
	b.Reset()
	p = huntProgress(&b, 0, clock, true)
	now = now.Add(time.Second)
	p(hunt.Stats{Trials: 8, States: 2})
	p(hunt.Stats{Trials: -1})
	if got := b.String(); got != "\rhunt: 8 trials, 2 states, 1s elapsed   \n" {
		t.Errorf("terminal line %q", got)
	}
}

func TestParseBudget(t *testing.T) {
	for in, want := range map[string][2]int64{"1000": {1000, 0}, " 5 ": {5, 0}, "30s": {0, int64(30 * time.Second)}, "2m": {0, int64(2 * time.Minute)}} {
		n, d, err := parseBudget(in)
		if err != nil || int64(n) != want[0] || int64(d) != want[1] {
			t.Errorf("parseBudget(%q) = %d, %v, %v; want %v", in, n, d, err, want)
		}
	}
	for _, in := range []string{"0", "-3", "0s", "soon", ""} {
		if _, _, err := parseBudget(in); err == nil {
			t.Errorf("parseBudget(%q) took it", in)
		}
	}
}
