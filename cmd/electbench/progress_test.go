package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/reports"
)

// Off a terminal: nothing for a short run, then a line at most every 10s.
func TestLogProgress(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &logProgress{w: &b, total: 100, start: now, last: now, every: logEvery, now: func() time.Time { return now }}
	for i := range 100 {
		now = now.Add(time.Second)
		r := reports.Row{Correct: true, Live: true}
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
	if lines[0] != "progress: 10/100 trials (10%), 1 failing, 10s elapsed, about 1m30s left" {
		t.Errorf("first line %q", lines[0])
	}
	// Not a terminal: a bytes.Buffer gets the plain lines.
	if _, ok := newProgress(&b, 5).(*logProgress); !ok {
		t.Error("a buffer got bars")
	}
}

// The bars draw to any writer and finish, whether the run completed or
// was interrupted.
func TestBarProgress(t *testing.T) {
	for _, n := range []int{3, 1} {
		var b bytes.Buffer
		p := newBarProgress(&b, 3)
		for range n {
			p.Done(reports.Row{Algorithm: "lcr", Nodes: 8, Correct: true, Live: true})
		}
		p.Close()
		if !strings.Contains(b.String(), "trials") || !strings.Contains(b.String(), "lcr n=8") {
			t.Errorf("%d of 3 done: bar output %q", n, b.String())
		}
	}
}
