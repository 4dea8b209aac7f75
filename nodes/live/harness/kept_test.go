//go:build linux

package harness_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos/toxi"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/trial"
)

// A runtime keeps a cluster's proxies for the trials of its size, and a
// trial finds them as new: a partition that lasts to the end of one trial
// (disabled proxies, or a blackhole toxic) is gone from the next, which
// elects the highest process as if on a new cluster. Without the reset its
// halves would stay cut and elect two leaders.
func TestKeptCluster(t *testing.T) {
	opt := options(t)
	srv, err := toxi.StartEmbedded() // outlives the runtime: what it keeps is seen
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	opt.Toxiproxy = srv.URL()
	var infos []harness.Info
	opt.Observe = func(i harness.Info) { infos = append(infos, i) }
	r := runtime(t, opt)
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
		info := infos[len(infos)-1]
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
		if !v.Correct || !v.Live || v.Violations != 0 ||
			leaderPos(t, res.Ranks, v.Leader) != leaderPos(t, cfg.Ranks, want.Leader) {
			t.Errorf("trial after the partitions (seed %d): %+v; simulator %+v", seed, v, want)
		}
	}
	// One cluster served them all: same proxies, same sockets.
	for _, info := range infos[1:] {
		if info.Prefix != infos[0].Prefix || !slices.Equal(sorted(info.NodeAddrs), sorted(infos[0].NodeAddrs)) {
			t.Errorf("a trial made a new cluster: %s %v, first %s %v", info.Prefix, info.NodeAddrs, infos[0].Prefix, infos[0].NodeAddrs)
		}
	}
	// A cluster of another size replaces it; closing the runtime
	// releases everything.
	ranks := random(4, 1)
	cfg := config(t, "chang-roberts", ranks, []int{lowest(ranks)}, T)
	if _, v, _ := run(t, r, cfg); !v.Correct || !v.Live {
		t.Errorf("4 nodes after 6: %+v", v)
	}
	if infos[len(infos)-1].Prefix == infos[0].Prefix {
		t.Error("a cluster of 4 nodes reused the one of 6")
	}
	r.Close()
	checkReleased(t, toxi.NewClient(infos[0].Toxiproxy), infos)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
