package live

import (
	"testing"
	"time"
)

// A loss fault's draws are a function of its seed alone, on the links it
// names only, and end at its heal; p = 1 loses everything.
func TestLossDrawsAreSeededPerLink(t *testing.T) {
	draws := func(seed uint64, p float64) []bool {
		f := &faults{}
		if err := f.lose(Command{Type: "lose", Fault: 3, Peers: []int{2}, P: p, Seed: seed}); err != nil {
			t.Fatal(err)
		}
		var out []bool
		for range 64 {
			if f.lost(1) {
				t.Fatal("a message to peer 1 lost: only the link to 2 loses")
			}
			out = append(out, f.lost(2))
		}
		f.heal(3)
		if f.lost(2) {
			t.Fatal("lost after the heal")
		}
		return out
	}
	a, b, c := draws(7, 0.5), draws(7, 0.5), draws(8, 0.5)
	lost := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d differs for the same seed", i)
		}
		if a[i] {
			lost++
		}
	}
	if lost < 16 || lost > 48 || equal(a, c) {
		t.Fatalf("p=0.5 lost %d of 64; another seed drew the same: %v", lost, equal(a, c))
	}
	for i, l := range draws(1, 1) {
		if !l {
			t.Fatalf("p=1: message %d not lost", i)
		}
	}
	if err := (&faults{}).lose(Command{P: 1.5}); err == nil {
		t.Fatal("a probability of 1.5 accepted")
	}
}

func equal(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// A slow node's steps wait one after another: each held step ends its
// service after the one before it, and a heal lets later steps through
// at once while the held ones keep their place.
func TestSlowHoldsStepsInOrder(t *testing.T) {
	posted := make(chan event, 8)
	f := &faults{post: func(e event) bool { posted <- e; return true }}
	if f.hold(event{kind: evTimer}) {
		t.Fatal("held a step with no slow fault in force")
	}
	const S = 20 * time.Millisecond
	if err := f.slowDown(Command{Fault: 1, Service: S}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 3 {
		if !f.hold(event{kind: evMsg, size: i}) {
			t.Fatalf("step %d not held", i)
		}
	}
	f.heal(1)
	if f.hold(event{kind: evTimer}) {
		t.Fatal("held a step after the heal")
	}
	for i := range 3 {
		e, ok := f.next((<-posted).gen)
		if !ok || e.size != i {
			t.Fatalf("served %+v (%v), want step %d", e, ok, i)
		}
		if took := time.Since(start); took < time.Duration(i+1)*S {
			t.Fatalf("step %d served after %v, before its service ended at %v", i, took, time.Duration(i+1)*S)
		}
	}
}
