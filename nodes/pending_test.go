package nodes

import (
	"sync"
	"testing"
)

// A call gets its own answer, once; an answer after Close, to an unknown
// number or a second one is dropped without blocking.
func TestPendingAnswers(t *testing.T) {
	var p Pending[string]
	a, ca := p.Open()
	b, cb := p.Open()
	if a == 0 || a == b {
		t.Fatalf("call numbers %d and %d: want distinct and non-zero", a, b)
	}
	if !p.Answer(b, "to b") {
		t.Fatal("Answer(b) was not taken")
	}
	if p.Answer(b, "again") {
		t.Error("a second answer to b was taken")
	}
	if got := <-cb; got != "to b" {
		t.Errorf("b's answer = %q, want %q", got, "to b")
	}
	select {
	case got := <-ca:
		t.Errorf("a got %q, which was b's", got)
	default:
	}
	p.Close(a)
	if p.Answer(a, "late") {
		t.Error("an answer after Close was taken")
	}
	if p.Answer(b+100, "stray") {
		t.Error("an answer to no call was taken")
	}
	p.Close(b)
	if n := len(p.waiting); n != 0 {
		t.Errorf("calls waiting after closing every call = %d, want 0", n)
	}
}

// Calls opened and answered from many goroutines each get their own answer
// (run under -race by CI).
func TestPendingConcurrent(t *testing.T) {
	var p Pending[uint64]
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 100 {
				id, answer := p.Open()
				go p.Answer(id, id)
				if got := <-answer; got != id {
					t.Errorf("call %d got the answer %d", id, got)
				}
				p.Close(id)
			}
		})
	}
	wg.Wait()
	if n := len(p.waiting); n != 0 {
		t.Errorf("calls waiting after every call ended = %d, want 0", n)
	}
}
