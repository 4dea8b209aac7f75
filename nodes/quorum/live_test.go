package quorum_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/workloads"
)

// TestMain lets this test binary be a live node: the harness re-executes it
// with ELECTBENCH_LIVE_NODE=1, as it re-executes electbench as `electbench
// node`, and the quorum algorithms are registered in it.
func TestMain(m *testing.M) {
	if os.Getenv("ELECTBENCH_LIVE_NODE") == "1" {
		os.Exit(nodeMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// nodeMain is `electbench node` for this test binary: it parses the flags
// the harness passes (--identity-dir, --bits, --forge) and runs the node.
func nodeMain(args []string) int {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	c := live.NodeConfig{Bits: live.DefaultBits}
	fs.StringVar(&c.IdentityDir, "identity-dir", c.IdentityDir, "")
	fs.IntVar(&c.Bits, "bits", c.Bits, "")
	fs.StringVar(&c.Forge, "forge", c.Forge, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := live.NodeMain(context.Background(), c, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	return 0
}

// The issue: each quorum algorithm runs on live processes at N = 5, its
// leader is SIGKILLed once elected, and the survivors elect the next leader,
// known by a majority, with one leader per term throughout.
func TestLiveLeaderKill(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer // the nodes' diagnostics, shown if the test fails
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("node diagnostics:\n%s", log.String())
		}
	})
	r, err := workloads.NewLiveRunner(context.Background(), workloads.LiveOptions{
		Node: []string{exe}, Env: []string{"ELECTBENCH_LIVE_NODE=1"}, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	crash, err := workloads.ParseCrash("leader@leader-elected")
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := workloads.ParseIDs("random")
	inits, _ := workloads.ParseInitiators("all")
	for _, name := range quorumAlgorithms {
		t.Run(name, func(t *testing.T) {
			alg, variant, err := nodes.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			s := &workloads.Spec{Scenario: "live-leader-kill", Algos: []workloads.Algo{{Alg: alg, Variant: variant}},
				Nodes: []int{5}, IDs: ids, Initiators: inits, Trials: 1, Seed: 1, Latency: trial.Constant(5 * time.Millisecond),
				Deadline: 2500 * time.Millisecond, Crashes: []workloads.CrashSpec{crash}}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := s.ValidateLive(); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res := r.Run(ctx, s.Plan()[0])
			row := res.Row
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
			t.Logf("%s: killed %s; leader %s after %.0f ms (detected after %.0f ms); terms %d, split votes %d; %s",
				name, dead, row.Leader, 1000*row.FailoverS.V, 1000*row.DetectS.V, row.Terms.V, row.SplitVotes.V, row.MessagesByKind)
		})
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
