//go:build unix

package cputime

import "testing"

// TestSelfGrows checks that CPU spent shows: a loop of a few million
// multiplications moves the clock forward.
func TestSelfGrows(t *testing.T) {
	before, ok := Self()
	if !ok {
		t.Fatal("getrusage refused")
	}
	x := uint64(1)
	for i := 0; i < 50_000_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	after, _ := Self()
	if x == 0 || after <= before {
		t.Fatalf("CPU time %v then %v after a busy loop", before, after)
	}
}
