package reports

import (
	"runtime"
	"testing"
)

// A KeySet holds exactly the keys added, telling apart keys that differ
// in one field, and holds them in a fraction of a map[Key]bool's memory.
func TestKeySet(t *testing.T) {
	rows := make([]Row, 100_000)
	for i := range rows {
		rows[i] = Row{Algorithm: "chang-roberts", Variant: "default", Runtime: "sim", Scenario: "adhoc",
			Nodes: 5, Arrangement: "random", Initiators: "lowest", Latency: "1ms", Trial: i, Seed: uint64(i) * 7919}
	}
	rows[1].Latency = "2ms" // a second configuration
	s := NewKeySet()
	for i := range rows {
		s.Add(rows[i].Key())
	}
	s.Add(rows[0].Key()) // a row read twice counts twice
	if s.Len() != len(rows)+1 {
		t.Errorf("Len %d, want %d", s.Len(), len(rows)+1)
	}
	for i := range rows {
		if !s.Has(rows[i].Key()) {
			t.Fatalf("row %d's key not in the set", i)
		}
	}
	for name, change := range map[string]func(*Key){
		"seed":        func(k *Key) { k.Seed++ },
		"trial":       func(k *Key) { k.Trial = -1 },
		"nodes":       func(k *Key) { k.Nodes++ },
		"latency":     func(k *Key) { k.Latency = "2ms" }, // a configuration of the set, with another trial's numbers
		"arrangement": func(k *Key) { k.Arrangement = "sorted" },
	} {
		k := rows[0].Key()
		change(&k)
		if s.Has(k) {
			t.Errorf("a key with another %s is in the set", name)
		}
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s = NewKeySet()
	for i := range rows {
		s.Add(rows[i].Key())
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perRow := float64(after.HeapAlloc-before.HeapAlloc) / float64(len(rows))
	t.Logf("%.1f B held a row", perRow)
	if perRow > 80 {
		t.Errorf("a KeySet holds %.1f B a row; want at most 80 (a map[Key]bool held about 170)", perRow)
	}
	runtime.KeepAlive(s)
	runtime.KeepAlive(rows)
}
