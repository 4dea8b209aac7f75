//go:build unix

package workloads

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/livetest"
	"github.com/electbench/electbench/nodes/trial"
)

// The quorum issue: each quorum algorithm runs on live processes at N = 5, its
// leader is SIGKILLed once elected, and the survivors elect the next leader,
// known by a majority, with one leader per term throughout. The trial then
// ends once the new leader has settled (trial.Settling), well before its
// deadline.
func TestQuorumLiveLeaderKill(t *testing.T) {
	node, env := livetest.Command(t)
	h, err := harness.New(context.Background(), harness.Options{Node: node, Env: env, Log: livetest.Log(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	r := &harness.Recorder{R: h}
	crash, err := ParseCrash("leader@leader-elected")
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := ParseIDs("random")
	inits, _ := ParseInitiators("all")
	for _, name := range quorumAlgorithms {
		t.Run(name, func(t *testing.T) {
			alg, variant, err := nodes.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			s := &Spec{Scenario: "live-leader-kill", Algos: []Algo{{Alg: alg, Variant: variant}},
				Nodes: []int{5}, IDs: ids, Initiators: inits, Trials: 1, Seed: 1, Latency: trial.Constant(5 * time.Millisecond),
				Deadline: 6 * time.Second, Crashes: []CrashSpec{crash}}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := s.ValidateLive(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			row := RunLiveTrial(ctx, r, s.Plan()[0], nil)
			res := r.Last
			if row.Error != "" {
				t.Fatal(row.Error)
			}
			if len(res.Crashes) != 1 || !res.Crashes[0].WasLeader {
				t.Fatalf("crashes %+v: want the leader killed", res.Crashes)
			}
			dead := res.Ranks[res.Crashes[0].Pos].String()
			if !row.Live || !row.Correct || row.SafetyViolations != 0 || row.Leader == dead {
				t.Fatalf("after killing %s: live %v, correct %v, leader %s, violations %d (%s)",
					dead, row.Live, row.Correct, row.Leader, row.SafetyViolations, row.Violation)
			}
			// The results say which node won which term: the dead leader
			// won the first term that had a winner, another node a later one.
			var winners []string
			for _, e := range strings.Split(row.TermLeaders, ";") {
				if _, w, _ := strings.Cut(e, "="); w != "-" {
					winners = append(winners, w)
				}
			}
			if !res.Settled || res.End >= s.Deadline*3/4 {
				t.Errorf("settled %v, last event at %v: want the trial ended by the settling rule, well before its deadline %v", res.Settled, res.End, s.Deadline)
			}
			killed := strconv.Itoa(res.Crashes[0].Pos)
			if len(winners) < 2 || winners[0] != killed || winners[len(winners)-1] == killed {
				t.Fatalf("term leaders %q: want %s's term, then another node's", row.TermLeaders, killed)
			}
			t.Logf("%s: killed %s (node %s); leader %s after %.0f ms (detected after %.0f ms); terms %d (term=node: %s), split votes %d; %s",
				name, dead, killed, row.Leader, 1000*row.FailoverS.Get(), 1000*row.DetectS.Get(), row.Terms.Get(), row.TermLeaders, row.SplitVotes.Get(), row.MessagesByKind)
		})
	}
}
