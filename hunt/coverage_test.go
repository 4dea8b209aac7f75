package hunt

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// story feeds a coverage sink a decision story: each process in turn
// decides the process given (by position), then the one at crash
// crashes. It returns the states reached.
func story(t *testing.T, ids []uint64, decide []int, crash int) map[uint64]time.Duration {
	t.Helper()
	alg, _, err := nodes.Lookup("chang-roberts")
	if err != nil {
		t.Fatal(err)
	}
	ranks := nodes.RanksFrom(ids...)
	c := newCoverage(&trial.Config{Algorithm: alg, Ranks: ranks})
	for p, l := range decide {
		c.Event(&trial.Event{Kind: trial.EvDecide, P: int32(p), Leader: ranks.At(l)})
	}
	if crash >= 0 {
		c.Event(&trial.Event{Kind: trial.EvCrash, P: int32(crash)})
	}
	return c.states
}

// The abstract state forgets positions, identities and, within a bucket,
// the cluster's size: the same story on another arrangement or another
// N reaches the same states; another story reaches others.
func TestCoverageAbstractsTheStory(t *testing.T) {
	same := func(a, b map[uint64]time.Duration) bool {
		if len(a) != len(b) {
			return false
		}
		for s := range a {
			if _, ok := b[s]; !ok {
				return false
			}
		}
		return true
	}
	// Everyone elects the highest, which then crashes.
	a := story(t, []uint64{1, 2, 3, 4, 5, 6, 7}, []int{6, 6, 6, 6, 6, 6, 6}, 6)
	b := story(t, []uint64{40, 2, 60, 1, 50, 3, 70}, []int{6, 6, 6, 6, 6, 6, 6}, 6)
	if !same(a, b) {
		t.Errorf("the same story on other identities reached other states")
	}
	// Each decision is a step, the crash another, beside the start: 9.
	if len(a) != 9 {
		t.Errorf("the story reached %d states, want 9 (start, 7 decisions, the crash)", len(a))
	}
	// Two leaders: a lower process believes itself leader.
	c := story(t, []uint64{1, 2, 3, 4, 5, 6, 7}, []int{0, 6, 6, 6, 6, 6, 6}, -1)
	fresh := 0
	for s := range c {
		if _, ok := a[s]; !ok {
			fresh++
		}
	}
	if fresh == 0 {
		t.Errorf("a process believing itself leader beside the highest reached no new state")
	}
	// The same story on 9 processes passes through states of the one on
	// 7: counts are bucketed (one, two, a minority, a majority).
	nine := story(t, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9}, []int{8, 8, 8, 8, 8, 8, 8, 8, 8}, 8)
	shared := 0
	for s := range nine {
		if _, ok := a[s]; ok {
			shared++
		}
	}
	if shared < 4 {
		t.Errorf("the story on 9 processes shares %d states with the one on 7, want at least 4 (none, one or two undecided, the crash)", shared)
	}
}
