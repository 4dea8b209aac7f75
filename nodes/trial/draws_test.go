package trial

import (
	"slices"
	"testing"
)

// Processes draw for the first time in any order: a stream's draws are
// recorded whole even once a later process has grown Record.Procs.
func TestRecordAnyOrder(t *testing.T) {
	var rec Draws
	p0 := ProcessDrawsRand(5, 0, nil, &rec)
	a := p0.Uint64()
	ProcessDrawsRand(5, 3, nil, &rec).Uint64()
	b := p0.Uint64()
	if !slices.Equal(rec.Procs[0], []uint64{a, b}) || len(rec.Procs) != 4 || len(rec.Procs[3]) != 1 {
		t.Fatalf("recorded %v, want p0's [%d %d] and one draw of p3", rec.Procs, a, b)
	}
	want := ProcessRand(5, 0)
	if a != want.Uint64() || b != want.Uint64() {
		t.Error("recording changed p0's draws")
	}
}

// Trim keeps each stream up to its last draw that is not the seed's own,
// so that the trial runs the same; nothing left, it says so.
func TestTrim(t *testing.T) {
	var seeded Draws
	r := NetRand(9, nil, &seeded)
	for range 4 {
		r.Uint64()
	}
	d := seeded.Clone()
	d.Net[1] = SimplestDraw
	d.Procs = [][]uint64{nil, {}}
	if !d.Trim(9) || !slices.Equal(d.Net, []uint64{seeded.Net[0], SimplestDraw}) || d.Procs != nil {
		t.Errorf("trimmed to %+v, want the first two network draws and no process", d)
	}
	if d := seeded.Clone(); d.Trim(9) {
		t.Errorf("the seed's own draws trimmed to %+v, want none", d)
	}
}
