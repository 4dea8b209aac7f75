package workloads

import (
	"reflect"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/reports"
)

// countsByName gives what the map it replaces gave (reports.CountsFromMap
// of nodes.CountsByKind): zero counts dropped, names sorted, and counts of
// kinds of one name added up; an empty result is empty, not nil (a row's
// JSON says [] either way).
func TestCountsByNameAsTheMap(t *testing.T) {
	names := []string{"", "VOTE", "ELECTION", "VOTE", "OK", "ELECTION", "COORDINATOR"}
	name := func(i int) string { return names[i] }
	for _, counts := range [][]int64{
		{0, 3, 1, 4, 0, 2, 7},
		{0, 0, 0, 5, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0},
		{},
	} {
		m := map[string]int64{}
		for i, n := range counts {
			if n != 0 {
				m[name(i)] += n
			}
		}
		want := reports.CountsFromMap(m)
		got := countsByName(counts, name)
		if !reflect.DeepEqual(got, want) || got == nil {
			t.Errorf("counts %v: got %v (nil %v), want %v", counts, got, got == nil, want)
		}
	}
	sent := make([]int64, nodes.NumKinds())
	sent[nodes.NumKinds()-1] = 2
	if got, want := countsByName(sent, func(i int) string { return nodes.Kind(i).String() }), reports.CountsFromMap(nodes.CountsByKind(sent)); !reflect.DeepEqual(got, want) {
		t.Errorf("a registered kind: got %v, want %v", got, want)
	}
}
