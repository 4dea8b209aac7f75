package shrink

import (
	"context"
	"testing"

	"github.com/electbench/electbench/nodes/quorum"
)

// The draws pass shrinks a trial's random draws toward the simplest (the
// shortest delay, the least timer) while the violation holds, and the
// shrunk file carries them (draws:) and replays 10/10 with its trace
// hash. Bully with T1 below the round trip's bound needs a slow ELECTION
// and OK, which the network's draws keep; raft without its vote check
// needs some of its election timeouts and log lengths.
func TestShrinkDraws(t *testing.T) {
	quorum.RegisterRaftWithoutVoteCheck()
	ctx := context.Background()
	for _, file := range []string{"testdata/bully-slow-ok.yaml", "testdata/raft-no-vote-check.yaml"} {
		t.Run(file, func(t *testing.T) {
			p, err := Pick(ctx, file, scenarioData(t, file))
			if err != nil {
				t.Fatal(err)
			}
			r, err := Shrink(ctx, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			d := r.Draws
			t.Logf("draws not the simplest: %d before the pass, %d after, %d candidates; the file's %+v", d.Before, d.After, d.Tried, r.Scenario.Draws)
			if d.After >= d.Before || d.After == 0 {
				t.Errorf("draws not the simplest: %d before the pass, %d after; want fewer, and some (the violation needs them)", d.Before, d.After)
			}
			if r.Scenario.Draws == nil {
				t.Fatal("the shrunk scenario carries no draws")
			}
			if r.Violation != p.Violation {
				t.Errorf("shrunk violation %s, picked %s", r.Violation, p.Violation)
			}
			if err := Verify(ctx, r, 10); err != nil {
				t.Error(err)
			}
		})
	}
}
