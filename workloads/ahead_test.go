package workloads

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// From aheadFrom processes on, a simulated trial computes its reference
// figures during the run: the ranks are rand.Perm's permutation of 1..N,
// and the row holds the figures
// (chang-roberts, successor of the highest: 3N − 1).
func TestLargeTrialRanksAndFigures(t *testing.T) {
	n := aheadFrom + 3
	r := IDs{Mode: "random"}.Ranks(n, 7)
	seen := make([]bool, n+1)
	for i := range r.Len() {
		x := r.At(i)
		v := x.ID[3]
		if x.Attr != 0 || x.ID[0]|x.ID[1]|x.ID[2] != 0 || v == 0 || v > uint64(n) || seen[v] {
			t.Fatalf("rank %d of %d is %v: not a permutation of 1..%d", i, n, x, n)
		}
		seen[v] = true
	}
	rows := rowsOf(t, spec(t, "chang-roberts", strconv.Itoa(aheadFrom), "random", "successor-of-max", "1ms", 1).Plan(), 1)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	want := int64(3*aheadFrom - 1)
	if m := rows[0].TheoryMessages; !m.IsSet() || m.Get() != want || rows[0].Messages != want {
		t.Fatalf("theory_messages %v, messages %d; want both %d", rows[0].TheoryMessages, rows[0].Messages, want)
	}
}

// figures computed ahead are the ones asked for only for the same ranks
// and initiators, and a panic computing them reaches the caller, whose
// trial turns it into its row's error.
func TestFiguresAhead(t *testing.T) {
	calls := 0
	theory := func(in nodes.TheoryInput) nodes.Theory {
		calls++
		if in.N < 0 {
			panic("negative N")
		}
		return nodes.Theory{Messages: int64(in.Ranks.Len()*10 + len(in.Initiators))}
	}
	ranks, init := make([]nodes.Rank, 4), []int{1}
	f := figuresAhead(theory, nodes.TheoryInput{N: 4, Ranks: nodes.RanksOf(ranks), Initiators: init})
	if th := f.get(theory, nodes.TheoryInput{N: 4, Ranks: nodes.RanksOf(ranks), Initiators: init}); th.Messages != 41 || calls != 1 {
		t.Fatalf("same input: %d messages after %d calls, want 41 after 1", th.Messages, calls)
	}
	if th := f.get(theory, nodes.TheoryInput{N: 4, Ranks: nodes.RanksOf(slices.Clone(ranks)), Initiators: init}); th.Messages != 41 || calls != 2 {
		t.Fatalf("other ranks: %d messages after %d calls, want computed again (2 calls)", th.Messages, calls)
	}
	var none *figures
	if th := none.get(theory, nodes.TheoryInput{Ranks: nodes.RanksOf(ranks[:2])}); th.Messages != 20 {
		t.Fatalf("no figures ahead: %d messages, want 20", th.Messages)
	}
	bad := figuresAhead(theory, nodes.TheoryInput{N: -1})
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "negative N") {
			t.Fatalf("recovered %v, want the theory's panic", r)
		}
	}()
	bad.get(theory, nodes.TheoryInput{N: -1})
	t.Fatal("get returned after the theory panicked")
}
