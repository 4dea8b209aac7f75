package check

import (
	"testing"
	"time"
)

// TestTermTable checks that a termTable finds every term it holds, and
// none it does not, by comparing while the terms are few and through its
// index past termScan, and keeps them in the order first seen (Verdict.Terms).
func TestTermTable(t *testing.T) {
	var tt termTable
	terms := []int64{3, 1, 7, 2, 9, 4, 12, 5, 6, 30, 8, 11}
	for i, term := range terms {
		if tt.find(term) != nil {
			t.Fatalf("term %d found before it was added", term)
		}
		e := tt.add(term, time.Duration(i))
		e.Leader = i
		for j, held := range terms[:i+1] {
			got := tt.find(held)
			if got == nil || got.Term != held || got.Ballot != time.Duration(j) || got.Leader != j {
				t.Fatalf("after %d terms, find(%d) = %+v, want term %d ballot %d leader %d", i+1, held, got, held, j, j)
			}
		}
		if tt.find(100) != nil {
			t.Fatalf("after %d terms, find(100) found a term never added", i+1)
		}
	}
	if tt.index == nil {
		t.Fatalf("%d terms and no index: the test does not reach past termScan (%d)", len(terms), termScan)
	}
	for i, e := range tt.list {
		if e.Term != terms[i] {
			t.Fatalf("list[%d] is term %d, want %d (the order first seen)", i, e.Term, terms[i])
		}
	}
}
