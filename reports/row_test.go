package reports

import "testing"

// Reruns counts the live trials run again, the attempts not kept, and the
// trials whose kept attempt overran all the same; sim rows (no reruns
// cell) and live rows run once count for nothing.
func TestReruns(t *testing.T) {
	rows := []Row{
		{Runtime: "sim", Overruns: Some(int64(3))},
		{Runtime: "live", Reruns: Some(int64(0)), Overruns: Some(int64(1))},
		{Runtime: "live", Reruns: Some(int64(1)), Overruns: Some(int64(0))},
		{Runtime: "live", Reruns: Some(int64(2)), Overruns: Some(int64(4))},
	}
	if n, attempts, kept := Reruns(rows); n != 2 || attempts != 3 || kept != 1 {
		t.Errorf("Reruns = %d trials, %d attempts, %d kept overrunning; want 2, 3, 1", n, attempts, kept)
	}
}
