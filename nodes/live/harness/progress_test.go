//go:build unix

package harness_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness"
)

// The set-up of a small live cluster is reported stage by stage, in order,
// each stage complete (every process up, every link's proxy ready, every
// link up) and the last call Running; the proxies a trial finds on the
// kept cluster count as kept, not made.
func TestSetupProgress(t *testing.T) {
	opt := options(t)
	var calls []harness.Setup
	opt.Progress = func(s harness.Setup) { calls = append(calls, s) }
	r := runtime(t, opt)
	const n = 6
	trials := []struct {
		algo       string
		seed       uint64
		links      int
		made, kept int
	}{
		{"bully", 1, n * (n - 1), n * (n - 1), 0}, // a new cluster: every proxy made
		{"bully", 2, n * (n - 1), 0, n * (n - 1)}, // the same cluster, kept
		{"chang-roberts", 3, n, 0, n},             // a ring uses some of its proxies
	}
	for k, tr := range trials {
		calls = nil
		ranks := random(n, tr.seed)
		cfg := config(t, tr.algo, ranks, []int{lowest(ranks)}, 2*time.Millisecond)
		cfg.Seed = tr.seed
		runOnce(t, r, cfg) // one attempt: its trial number is k+1
		if len(calls) == 0 {
			t.Fatalf("trial %d (%s): no progress", k+1, tr.algo)
		}
		last := map[harness.Stage]harness.Setup{}
		prev := harness.Setup{Stage: harness.Starting}
		for i, c := range calls {
			if c.Trial != k+1 || c.Algorithm != tr.algo || c.Nodes != n || c.Seed != tr.seed || c.Variant == "" {
				t.Fatalf("trial %d: call %d names %d %s/%s n=%d seed %d", k+1, i, c.Trial, c.Algorithm, c.Variant, c.Nodes, c.Seed)
			}
			if c.Stage < prev.Stage || c.Stage == prev.Stage && c.Done < prev.Done || c.Elapsed < prev.Elapsed || c.Done > c.Total {
				t.Fatalf("trial %d: call %d %+v after %+v", k+1, i, c, prev)
			}
			last[c.Stage], prev = c, c
		}
		if calls[len(calls)-1].Stage != harness.Running {
			t.Errorf("trial %d: the last call is %v, not running", k+1, calls[len(calls)-1].Stage)
		}
		want := map[harness.Stage][2]int{harness.Starting: {n, n}, harness.Proxying: {tr.links, tr.links}, harness.Linking: {tr.links, tr.links}}
		for s, w := range want {
			if c, ok := last[s]; !ok || c.Done != w[0] || c.Total != w[1] {
				t.Errorf("trial %d: stage %v ends at %+v, want %d of %d", k+1, s, c, w[0], w[1])
			}
		}
		if c := last[harness.Linking]; c.Made != tr.made || c.Kept != tr.kept {
			t.Errorf("trial %d: %d proxies made and %d kept, want %d and %d", k+1, c.Made, c.Kept, tr.made, tr.kept)
		}
	}
}

func ExampleStage() {
	for s := harness.Starting; s <= harness.Running; s++ {
		fmt.Print(s, " ")
	}
	// Output: starting proxying linking running
}
