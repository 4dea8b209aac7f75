package reports

import (
	"runtime"
	"testing"
)

// A KeySet holds exactly its rows' keys, a hash shared by two keys
// included, and holds them in a fraction of a map[Key]bool's memory.
func TestKeySet(t *testing.T) {
	rows := make([]Row, 100_000)
	for i := range rows {
		rows[i] = Row{Algorithm: "chang-roberts", Variant: "default", Runtime: "sim", Scenario: "adhoc",
			Nodes: 5, Arrangement: "random", Initiators: "lowest", Latency: "1ms", Trial: i, Seed: uint64(i) * 7919}
	}
	other := rows[0].Key()
	other.Seed++
	for name, s := range map[string]*KeySet{
		"maphash": NewKeySet(rows),
		// Every key's hash the same: each found by its whole key.
		"one hash": newKeySet(rows[:50], func(Key) uint64 { return 1 }),
	} {
		for i := range s.rows {
			if !s.Has(s.rows[i].Key()) {
				t.Fatalf("%s: row %d's key not in the set", name, i)
			}
		}
		if s.Has(other) {
			t.Errorf("%s: a key of no row is in the set", name)
		}
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewKeySet(rows)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRow := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(rows))
	t.Logf("%.1f B held a row", perRow)
	if perRow > 40 {
		t.Errorf("a KeySet holds %.1f B a row; want at most 40 (a map[Key]bool held about 170)", perRow)
	}
	runtime.KeepAlive(s)
}
