//go:build linux

package harness_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/trial"
)

// A runtime keeps a cluster's proxies for the trials of its size, and a
// trial finds them as new: a partition that lasts to the end of one trial
// (disabled proxies, or a blackhole toxic) is gone from the next, which
// elects the highest process as if on a new cluster. Without the reset its
// halves would stay cut and elect two leaders.
func TestKeptCluster(t *testing.T) {
	r, _, _, infos := observed(t)
	// T = 10 ms: bully's D is T plus the 5 ms allowance, and a loaded host
	// must keep every message within it (an attempt it does not is run
	// again: run).
	const T = 10 * time.Millisecond
	const n = 6
	for k, silent := range []bool{true, false} {
		cfg := config(t, "bully", random(n, uint64(k+1)), everyone(n), T)
		cfg.Faults = []trial.Fault{partition(halves(n), silent)}
		if _, v, _ := run(t, r, cfg); v.Correct || v.Violations == 0 {
			t.Fatalf("partitioned trial %d: two leaders not flagged: %+v", k, v)
		}
		// Read back, every proxy is as created: enabled, upstream on a
		// socket of the cluster, no toxic but its latency of T.
		info := (*infos)[len(*infos)-1]
		states, err := toxi.NewClient(info.Toxiproxy).States(context.Background(), info.Prefix)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) != n*(n-1) {
			t.Fatalf("after trial %d the cluster has %d proxies, want %d", k, len(states), n*(n-1))
		}
		for name, st := range states {
			if !st.Enabled || len(st.Toxics) != 1 || st.Toxics[0].Name != toxi.LatencyToxic ||
				st.Toxics[0].Attributes["latency"] != float64(T.Milliseconds()) {
				t.Errorf("after trial %d proxy %s is %+v", k, name, st)
			}
		}
	}
	for seed := range uint64(3) {
		cfg := config(t, "bully", random(n, 10+seed), everyone(n), T)
		res, v, _ := run(t, r, cfg)
		_, want, _ := simulate(t, cfg)
		if !overran(t, &cfg, res) && (!v.Correct || !v.Live || v.Violations != 0 ||
			leaderPos(t, res.Ranks, v.Leader) != leaderPos(t, cfg.Ranks.Slice(), want.Leader)) {
			t.Errorf("trial after the partitions (seed %d): %+v; simulator %+v", seed, v, want)
		}
	}
	// One cluster served them all: same proxies, same sockets.
	for _, info := range (*infos)[1:] {
		if info.Prefix != (*infos)[0].Prefix || !slices.Equal(sorted(info.NodeAddrs), sorted((*infos)[0].NodeAddrs)) {
			t.Errorf("a trial made a new cluster: %s %v, first %s %v", info.Prefix, info.NodeAddrs, (*infos)[0].Prefix, (*infos)[0].NodeAddrs)
		}
	}
	// A cluster of another size replaces it; closing the runtime
	// releases everything.
	ranks := random(4, 1)
	cfg := config(t, "chang-roberts", ranks, []int{lowest(ranks)}, T)
	if _, v, _ := run(t, r, cfg); !v.Correct || !v.Live {
		t.Errorf("4 nodes after 6: %+v", v)
	}
	if (*infos)[len(*infos)-1].Prefix == (*infos)[0].Prefix {
		t.Error("a cluster of 4 nodes reused the one of 6")
	}
	r.Close()
	checkReleased(t, toxi.NewClient((*infos)[0].Toxiproxy), *infos)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// A clean trial leaves its node processes running and linked for the next
// trial of the cluster (warm.go): that trial starts no process and shakes
// no hands, yet elects as on a new cluster, its counts its own (raft runs
// to its deadline, heartbeats in flight when each trial ends). A crash
// sends the next trial to new processes, which are kept in turn; closing
// the runtime releases them all.
func TestWarmCluster(t *testing.T) {
	r, _, srv, infos := observed(t)
	const n = 5
	const T = 5 * time.Millisecond
	hellos := func(res *harness.Result) (k int64) {
		for _, st := range res.Stats {
			if st != nil {
				k += st.FramesSent["HELLO"]
			}
		}
		return k
	}
	for seed := range uint64(3) {
		cfg := config(t, "raft", random(n, seed+1), nil, T)
		cfg.Seed, cfg.Deadline = seed+1, 300*T
		res, v, _ := run(t, r, cfg)
		if !v.Correct || !v.Live || v.Violations != 0 {
			t.Fatalf("raft trial %d: %+v", seed, v)
		}
		info := (*infos)[len(*infos)-1]
		switch {
		case seed == 0 && hellos(res) != n*(n-1)*2:
			t.Errorf("the first trial's nodes sent %d HELLO frames, want %d", hellos(res), n*(n-1)*2)
		case seed > 0 && hellos(res) != 0:
			t.Errorf("trial %d on kept processes sent %d HELLO frames", seed, hellos(res))
		case seed > 0 && !slices.Equal(info.PIDs, (*infos)[0].PIDs):
			t.Errorf("trial %d ran on processes %v, not the kept %v", seed, info.PIDs, (*infos)[0].PIDs)
		case seed > 0 && info.Dir != (*infos)[0].Dir:
			t.Errorf("trial %d's identities are in %s, not the kept %s", seed, info.Dir, (*infos)[0].Dir)
		}
		if res.Sent.Total() == 0 || res.Received.Total() > res.Sent.Total() {
			t.Errorf("trial %d counted %d sent, %d received", seed, res.Sent.Total(), res.Received.Total())
		}
	}
	// A crash: the trial runs on the kept processes; the next on new ones.
	ranks := random(n, 7)
	cfg := config(t, "bully", ranks, []int{lowest(ranks)}, 10*time.Millisecond)
	cfg.Faults = []trial.Fault{trial.CrashFault(highest(ranks), trial.When{Trigger: trial.AtStart})}
	first := len(*infos)
	if res, v, _ := run(t, r, cfg); !overran(t, &cfg, res) && (!v.Correct || !v.Live) {
		t.Fatalf("bully with the highest crashed: %+v", v)
	}
	// Its first attempt (a loaded host may have it run again: run) took
	// the kept processes; the crash spent them.
	if !slices.Equal((*infos)[first].PIDs, (*infos)[0].PIDs) {
		t.Errorf("the crash trial ran on %v, not the kept %v", (*infos)[first].PIDs, (*infos)[0].PIDs)
	}
	crashed := (*infos)[len(*infos)-1]
	for k := range 2 {
		ranks := random(n, uint64(20+k))
		cfg := config(t, "chang-roberts", ranks, []int{lowest(ranks)}, T)
		res, v, _ := run(t, r, cfg)
		_, want, _ := simulate(t, cfg)
		if !v.Correct || !v.Live || leaderPos(t, res.Ranks, v.Leader) != leaderPos(t, cfg.Ranks.Slice(), want.Leader) {
			t.Errorf("chang-roberts after the crash (%d): %+v; simulator %+v", k, v, want)
		}
		pids := (*infos)[len(*infos)-1].PIDs
		if k == 0 && slices.ContainsFunc(pids, func(p int) bool { return slices.Contains(crashed.PIDs, p) }) {
			t.Errorf("the trial after a crash ran on old processes: %v (crash trial %v)", pids, crashed.PIDs)
		}
		if k == 1 && !slices.Equal(pids, (*infos)[len(*infos)-2].PIDs) {
			t.Errorf("new processes were not kept: %v, then %v", (*infos)[len(*infos)-2].PIDs, pids)
		}
	}
	r.Close()
	checkReleased(t, toxi.NewClient(srv.URL()), *infos)
}

// On the embedded server, which only the harness drives, a clean trial's
// cluster is kept without reading its proxies back (nothing changed
// them), and a trial whose faults changed proxies has them put back: the
// trials that follow run on the same cluster, every proxy as created.
func TestEmbeddedClusterResetsWhatFaultsChanged(t *testing.T) {
	opt := options(t)
	var infos []harness.Info
	opt.Observe = func(i harness.Info) { infos = append(infos, i) }
	r := runtime(t, opt)
	const T = 10 * time.Millisecond
	const n = 6
	clean := func(when string) {
		t.Helper()
		info := infos[len(infos)-1]
		states, err := toxi.NewClient(info.Toxiproxy).States(context.Background(), info.Prefix)
		if err != nil {
			t.Fatal(err)
		}
		if len(states) != n*(n-1) {
			t.Fatalf("%s the cluster has %d proxies, want %d", when, len(states), n*(n-1))
		}
		for name, st := range states {
			if !st.Enabled || len(st.Toxics) != 1 || st.Toxics[0].Name != toxi.LatencyToxic ||
				st.Toxics[0].Attributes["latency"] != float64(T.Milliseconds()) {
				t.Errorf("%s proxy %s is %+v", when, name, st)
			}
		}
	}
	elect := func(seed uint64) {
		t.Helper()
		cfg := config(t, "bully", random(n, seed), everyone(n), T)
		if res, v, _ := run(t, r, cfg); !overran(t, &cfg, res) && (!v.Correct || !v.Live || v.Violations != 0) {
			t.Fatalf("clean trial (seed %d): %+v", seed, v)
		}
	}
	elect(1)
	clean("after a clean trial")
	cfg := config(t, "bully", random(n, 2), everyone(n), T)
	cfg.Faults = []trial.Fault{partition(halves(n), false)}
	if _, v, _ := run(t, r, cfg); v.Correct || v.Violations == 0 {
		t.Fatalf("partitioned trial: two leaders not flagged: %+v", v)
	}
	clean("after a partitioned trial")
	elect(3)
	for _, info := range infos[1:] {
		if info.Prefix != infos[0].Prefix {
			t.Errorf("a trial made a new cluster: %s, first %s", info.Prefix, infos[0].Prefix)
		}
	}
}
