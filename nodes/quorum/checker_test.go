package quorum_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/trial"
)

// The checker's quorum rules, fed messages by hand: each must catch what it
// is there for, and say when and who.

func watching(t *testing.T, spec string, n int) *check.Checker {
	t.Helper()
	alg, _, err := nodes.Lookup(spec)
	if err != nil {
		t.Fatal(err)
	}
	ranks := make([]nodes.Rank, n)
	for i := range ranks {
		ranks[i] = nodes.RankOf(uint64(i + 1))
	}
	c := check.New(nodes.RanksOf(ranks))
	if err := c.WatchQuorum(alg, nodes.Config{N: n, T: T}); err != nil {
		t.Fatal(err)
	}
	return c
}

func msg(kind string, term, b int64) nodes.Message {
	k, ok := nodes.KindByName(kind)
	if !ok {
		panic(kind)
	}
	return nodes.Message{Kind: k, A: term, B: b}
}

func verdict(c *check.Checker, n int) check.Verdict {
	return c.Finish(new(trial.NewDecisions(n)), false, time.Second)
}

func TestCheckerTwoLeadersInATerm(t *testing.T) {
	c := watching(t, "raft", 5)
	c.Sent(0, 0, msg("REQUEST_VOTE", 1, 0))
	c.Delivered(T, 0, 1, msg("VOTE", 1, 1))
	c.Delivered(T, 0, 2, msg("VOTE", 1, 1))
	c.Sent(2*T, 0, msg("HEARTBEAT", 1, 0)) // three of five: a leader
	c.Sent(3*T, 0, msg("HEARTBEAT", 1, 0)) // its next heartbeat: nothing new
	v := verdict(c, 5)
	if v.Violations != 0 {
		t.Fatalf("one leader: %v", v.Recorded)
	}
	c.Delivered(3*T, 4, 3, msg("VOTE", 1, 1))
	c.Delivered(3*T, 4, 2, msg("VOTE", 1, 1)) // a second vote of process 2 in term 1
	c.Sent(4*T, 4, msg("HEARTBEAT", 1, 0))
	c.Sent(5*T, 4, msg("HEARTBEAT", 1, 0)) // recorded once per term
	v = verdict(c, 5)
	if v.Violations != 1 || v.Recorded[0].Kind != "two-leaders" || !strings.Contains(v.Recorded[0].Detail, "term 1") {
		t.Fatalf("got %d: %v", v.Violations, v.Recorded)
	}
	if len(v.Terms) != 1 || v.Terms[0].Leader != 0 || v.SplitVotes() != 0 {
		t.Fatalf("terms %+v", v.Terms)
	}
}

// "A minority side of a partition never elects": a leader must have had a
// majority's grants delivered, its own included; refusals and duplicates do
// not count.
func TestCheckerMinorityLeader(t *testing.T) {
	c := watching(t, "raft", 5)
	c.Sent(0, 3, msg("REQUEST_VOTE", 2, 0))
	c.Delivered(T, 3, 4, msg("VOTE", 2, 1))
	c.Delivered(T, 3, 4, msg("VOTE", 2, 1))
	c.Delivered(T, 3, 1, msg("VOTE", 2, 0))
	c.Delivered(T, 3, 2, msg("VOTE", 1, 1)) // another term
	c.Sent(2*T, 3, msg("HEARTBEAT", 2, 0))
	v := verdict(c, 5)
	if v.Violations != 1 || v.Recorded[0].Kind != "minority-leader" || !strings.Contains(v.Recorded[0].Detail, "2 of 5 votes") {
		t.Fatalf("got %v", v.Recorded)
	}
}

// Chubby: no two masters' leases overlap in the harness clock; a violation
// names both intervals. A renewal extends its own master's lease.
func TestCheckerLeaseOverlap(t *testing.T) {
	c := watching(t, "chubby", 3) // lease 40T
	grant := func(at time.Duration, to, from int, epoch int64) { c.Delivered(at, to, from, msg("VOTE", epoch, 1)) }
	c.Sent(0, 0, msg("VOTE_REQUEST", 1, 0))
	grant(T, 0, 1, 1)
	c.Sent(2*T, 0, msg("LEASE", 1, 0))  // [2T, 42T)
	c.Sent(32*T, 0, msg("LEASE", 1, 0)) // renewed: [2T, 72T)
	c.Sent(80*T, 2, msg("VOTE_REQUEST", 2, 0))
	grant(81*T, 2, 1, 2)
	c.Sent(82*T, 2, msg("LEASE", 2, 0)) // after the end: fine
	if v := verdict(c, 3); v.Violations != 0 {
		t.Fatalf("disjoint leases: %v", v.Recorded)
	}
	c.Sent(90*T, 1, msg("VOTE_REQUEST", 3, 0))
	grant(91*T, 1, 0, 3)
	c.Sent(100*T, 1, msg("LEASE", 3, 0)) // while 2 holds [82T, 122T)
	c.Sent(101*T, 1, msg("LEASE", 3, 0)) // the same overlap, recorded once
	v := verdict(c, 3)
	if v.Violations != 1 || v.Recorded[0].Kind != "lease-overlap" {
		t.Fatalf("got %v", v.Recorded)
	}
	for _, want := range []string{"[410ms, 610ms)", "[500ms, 700ms)"} { // T = 5ms
		if !strings.Contains(v.Recorded[0].Detail, want) {
			t.Errorf("%q does not name the interval %s", v.Recorded[0].Detail, want)
		}
	}
}

// docs/STYLE.md, "Determinism": the same seed twice gives the same run,
// event for event.
func TestDeterministic(t *testing.T) {
	for _, name := range quorumAlgorithms {
		var traces [2]bytes.Buffer
		for i := range traces {
			n, faults := randomFaults(7)
			runWith(t, name, nil, n, jittered, 7, 800*T, false, nil, faults, trial.Detector{}, &traces[i])
		}
		if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) {
			t.Errorf("%s: two runs of one seed differ", name)
		}
		if traces[0].Len() < 1000 {
			t.Errorf("%s: a trace of %d bytes", name, traces[0].Len())
		}
	}
}

// The simulator restarts a process as a fresh machine; what it keeps is
// what it saved on its stable store (nodes.StableStore). Chubby, which
// forgets only promises that time bounds, stays lease-safe by abstaining
// for L + margin after a restart. Raft keeps its term and vote there, as
// Figure 2 requires, and etcd-raft its hard state and log, as etcd keeps
// them in its WAL: both stay safe. Raft with amnesia (a server without
// durable storage), which cannot know what it forgot, elects two leaders in
// a term now and then — and the checker says so.
func TestSimRestartsWithoutStableStorage(t *testing.T) {
	unsafe := map[string]int{}
	for _, name := range append(slices.Clone(quorumAlgorithms), "raft+amnesia") {
		params := nodes.Params(nil)
		if name == "raft+amnesia" {
			params = nodes.Params{"amnesia": "true"}
		}
		for seed := range uint64(300) {
			r := rand.New(rand.NewPCG(seed, 9))
			var faults []trial.Fault
			for range 6 {
				p := r.IntN(5)
				faults = append(faults, trial.Fault{Effect: trial.EffCrash, Name: "crash",
					Start:   trial.When{Trigger: trial.AtTime, At: time.Duration(50+r.IntN(500)) * T},
					For:     time.Duration(1+r.IntN(20)) * T, // healing a crash restarts the process
					Targets: func(trial.View) []int { return []int{p} }})
			}
			tr := run(t, strings.TrimSuffix(name, "+amnesia"), params, 5, jittered, seed, 1000*T, false, nil, faults)
			for _, v := range tr.v.Recorded {
				if v.Kind == "lease-overlap" || v.Kind == "two-leaders" || v.Kind == "minority-leader" {
					unsafe[name]++
					if name == "chubby" || name == "etcd-raft" || name == "raft" {
						t.Errorf("%s, seed %d: %v", name, seed, v)
					}
					break
				}
			}
		}
	}
	t.Logf("unsafe runs of 300 with amnesiac restarts: %v", unsafe)
	if unsafe["raft+amnesia"] == 0 {
		t.Error("raft with amnesia never elected two leaders in a term after restarts: the checker saw nothing")
	}
}

// Leader Completeness (Raft §5.4): "if a log entry is committed in a given
// term, then that entry will be present in the logs of the leaders for all
// higher-numbered terms". A term's first leader must hold the index a
// majority holds (the committed index: here the second highest of three).
func TestCheckerLeaderCompleteness(t *testing.T) {
	elect := func(c *check.Checker, p int, term int64) {
		c.Sent(0, p, msg("REQUEST_VOTE", term, 0))
		c.Delivered(T, p, (p+1)%3, msg("VOTE", term, 1))
		c.Sent(2*T, p, msg("HEARTBEAT", term, 0))
	}
	c := watching(t, "raft", 3)
	for p, last := range []int64{5, 7, 3} {
		c.LastIndex(int32(p), last)
	}
	elect(c, 0, 1) // holds 5, the committed index
	if v := verdict(c, 3); v.Violations != 0 {
		t.Fatalf("a leader holding the committed index: %v", v.Recorded)
	}
	elect(c, 2, 2) // holds 3 of 5
	v := verdict(c, 3)
	if v.Violations != 1 || v.Recorded[0].Kind != "leader-completeness" || !strings.Contains(v.Recorded[0].Detail, "last log index 3, below the committed index 5") {
		t.Fatalf("got %v", v.Recorded)
	}
	// Without a log nothing is judged.
	c = watching(t, "raft", 3)
	elect(c, 2, 1)
	if v := verdict(c, 3); v.Violations != 0 {
		t.Fatalf("no logs: %v", v.Recorded)
	}
}
