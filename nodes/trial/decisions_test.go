package trial

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// RankTable numbers ranks as a map from rank to first-seen order would, on
// its fast path for the rank seen last and off it, before and after it
// makes its map, for small ranks and for ranks that differ from one another only in an attribute or a high word.
func TestRankTableMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pool := []nodes.Rank{
		{}, nodes.RankOf(1), nodes.RankOf(2), {Attr: 1, ID: nodes.IDFromUint64(1)},
		{ID: nodes.ID{1, 0, 0, 1}}, {ID: nodes.ID{1, 0, 0, 2}}, {ID: nodes.ID{0, 0, 1, 1}},
		{Attr: 1, ID: nodes.ID{1, 0, 0, 1}},
	}
	// More ranks than rankScan, so that the table passes from comparing
	// to its map during the run.
	for i := range 2 * rankScan {
		pool = append(pool, nodes.RankOf(uint64(10+i)))
	}
	var table RankTable
	want := map[nodes.Rank]int32{}
	for step := range 10_000 {
		x := pool[r.IntN(len(pool))]
		if got, ok := table.Lookup(&x); ok != (want[x] != 0) || ok && got != want[x]-1 {
			t.Fatalf("step %d: Lookup(%v) = %d, %v; want %d, %v", step, x, got, ok, want[x]-1, want[x] != 0)
		}
		if _, seen := want[x]; !seen {
			want[x] = int32(len(want)) + 1
		}
		if got := table.Index(&x); got != want[x]-1 || table.Rank(got) != x {
			t.Fatalf("step %d: Index(%v) = %d (rank %v); want %d", step, x, got, table.Rank(got), want[x]-1)
		}
	}
	if table.Len() != len(pool) {
		t.Fatalf("table holds %d ranks, want %d", table.Len(), len(pool))
	}
}

// Decisions keeps each process's latest leader, time and count.
func TestDecisionsKeepLatest(t *testing.T) {
	d := NewDecisions(3)
	five, seven := nodes.RankOf(5), nodes.RankOf(7)
	d.Decided(0, &five, 1)
	d.Decided(1, &five, 2)
	d.Decided(0, &seven, 3)
	if got := d.Get(0); got != (Decision{Leader: nodes.RankOf(7), At: 3, Count: 2}) {
		t.Errorf("process 0: %+v", got)
	}
	if got := d.Get(1); got != (Decision{Leader: nodes.RankOf(5), At: 2, Count: 1}) {
		t.Errorf("process 1: %+v", got)
	}
	if got := d.Get(2); got != (Decision{}) {
		t.Errorf("process 2: %+v", got)
	}
	alive := []bool{true, true, true}
	want := Agreement{All: false, Agree: false, First: 0, Dissent: 1, At: 3, Leader: seven, Live: 3}
	if a := d.Agreement(alive); a != want {
		t.Errorf("agreement %+v, want %+v", a, want)
	}
	d.Forget(0)
	if got := d.Get(0); got != (Decision{}) || d.Get(1).At != 2*time.Nanosecond {
		t.Errorf("after Forget: process 0 %+v, process 1 at %v", got, d.Get(1).At)
	}
}

// Agreement.Settled holds only when every live process, a majority,
// believes one live leader.
func TestAgreementSettled(t *testing.T) {
	ranks := []nodes.Rank{nodes.RankOf(3), nodes.RankOf(5), nodes.RankOf(7)}
	d := NewDecisions(3)
	for p := range 3 {
		d.Decided(p, &ranks[2], 1)
	}
	for _, c := range []struct {
		alive []bool
		want  bool
	}{
		{[]bool{true, true, true}, true},
		{[]bool{false, true, true}, true},   // a majority, its leader live
		{[]bool{true, true, false}, false},  // the leader is down
		{[]bool{false, false, true}, false}, // a minority
	} {
		if got := d.Agreement(c.alive).Settled(c.alive, nodes.RanksOf(ranks)); got != c.want {
			t.Errorf("alive %v: settled %v, want %v", c.alive, got, c.want)
		}
	}
	d.Decided(1, &ranks[1], 2)
	if all := []bool{true, true, true}; d.Agreement(all).Settled(all, nodes.RanksOf(ranks)) {
		t.Error("settled while process 1 believes another leader")
	}
}
