package trial

import (
	"maps"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// A record counting in a kept buffer (NewRecordIn) reads the same counts
// once it owns them (OwnCounts), and keeps them when the buffer serves the
// next record.
func TestOwnCounts(t *testing.T) {
	a := nodes.RegisterKind("OWNCOUNTSA", nodes.ElectionClass)
	b := nodes.RegisterKind("OWNCOUNTSB", nodes.ElectionClass)
	tm := nodes.RegisterTimer("owncountst", nodes.ElectionClass)
	var buf []int64
	for trial := range 3 {
		r := NewRecordIn(&buf, 3, 1, Detector{})
		for range trial + 1 {
			r.CountSend(a, 10)
		}
		if trial != 1 {
			r.CountSend(b, 7)
		}
		r.CountFire(tm)
		sent, fired, bytes := r.MessagesByKind(), r.TimeoutsByKind(), r.Bytes
		r.OwnCounts()
		clear(buf) // the next trial's record counts in it
		if got := r.MessagesByKind(); !maps.Equal(got, sent) {
			t.Fatalf("trial %d: messages %v, want %v", trial, got, sent)
		}
		if got := r.TimeoutsByKind(); !maps.Equal(got, fired) {
			t.Fatalf("trial %d: timeouts %v, want %v", trial, got, fired)
		}
		if r.SentBytes[a] != int64(10*(trial+1)) || r.Bytes != bytes {
			t.Fatalf("trial %d: %d bytes of A, %d in all", trial, r.SentBytes[a], r.Bytes)
		}
		if len(r.Sent) >= len(buf) {
			t.Fatalf("trial %d: %d kinds kept, the buffer's %d", trial, len(r.Sent), len(buf))
		}
	}
}
