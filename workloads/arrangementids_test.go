package workloads

import (
	"slices"
	"strconv"
	"testing"
)

// ArrangementIDs reads a row's arrangement column back into the trial's
// identities (what electbench explore labels lanes with): the draw the
// trial made from its seed, and nothing where the column does not
// determine them.
func TestArrangementIDs(t *testing.T) {
	const n, seed = 6, 8038239006130193684
	for _, tc := range []struct {
		arrangement string
		want        []string
	}{
		{"ascending", []string{"1", "2", "3", "4", "5", "6"}},
		{"descending", []string{"6", "5", "4", "3", "2", "1"}},
		{"anonymous", []string{"1", "1", "1", "1", "1", "1"}},
		// bully-short-t1's trial 0: its violation names process 4 (id 1)
		// deciding itself "while 6 is alive".
		{"random", []string{"2", "5", "3", "4", "1", "6"}},
	} {
		got, ok := ArrangementIDs(tc.arrangement, n, seed)
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q (%v), want %q", tc.arrangement, got, ok, tc.want)
		}
	}
	// Ranked by epoch: the same identities re-ranked by H(id ‖ nonce),
	// each distinct, none the bare id.
	byEpoch, ok := ArrangementIDs("random+epoch", n, seed)
	if !ok || len(byEpoch) != n {
		t.Fatalf("random+epoch: %q (%v)", byEpoch, ok)
	}
	for i, id := range byEpoch {
		if _, err := strconv.Atoi(id); err == nil || slices.Contains(byEpoch[:i], id) {
			t.Errorf("random+epoch: rank %d is %q, want a distinct epoch rank", i, id)
		}
	}
	for _, arrangement := range []string{"list", "pow(8)", "nonsense", ""} {
		if ids, ok := ArrangementIDs(arrangement, n, seed); ok {
			t.Errorf("%q: %q; the column does not determine the ids", arrangement, ids)
		}
	}
}
