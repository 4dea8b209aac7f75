//go:build unix

package harness_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/trial"
)

// A cluster one process cannot hold (here under a limit lowered to 160
// descriptors, where 6 complete nodes need 184 in one process) runs on two
// Toxiproxy servers, the embedded one and a process of its own, each
// holding the proxies into its half of the nodes; trials run as on one,
// their partitions and crashes acting across both; and once the runtime is
// closed the server process, with its proxies and ports, is gone.
func TestSplitServers(t *testing.T) {
	harness.SetFDLimit(t, 160)
	if k, err := harness.Servers(6, nodes.Complete, false, true); k != 2 || err != nil {
		t.Fatalf("6 complete under 160: %d servers (%v), want 2", k, err)
	}
	opt := options(t)
	var infos []harness.Info
	opt.Observe = func(i harness.Info) { infos = append(infos, i) }
	r := runtime(t, opt)
	// T = 10 ms: bully's D is T plus the 5 ms allowance, and a loaded host
	// must keep every message within it (an attempt it does not is run
	// again: run).
	const T = 10 * time.Millisecond

	t.Run("halves partition under bully", func(t *testing.T) {
		ranks := random(6, 1)
		cfg := config(t, "bully", ranks, everyone(6), T)
		cfg.Faults = []trial.Fault{partition(halves(6), false)}
		res, v, _ := run(t, r, cfg)
		info := res.Info
		if len(info.Servers) != 2 || len(info.ServerPIDs) != 1 {
			t.Fatalf("servers %v, processes %v: want 2 and 1", info.Servers, info.ServerPIDs)
		}
		// The proxy of spawn indices i→j is on server j·2/6.
		total := 0
		for s, url := range info.Servers {
			names, err := toxi.NewClient(url).Names(context.Background(), info.Prefix)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range names {
				_, to, _ := strings.Cut(strings.TrimPrefix(name, info.Prefix), "-")
				if j, err := strconv.Atoi(to); err != nil || j*2/6 != s {
					t.Errorf("proxy %s into node %s is on server %d", name, to, s)
				}
			}
			total += len(names)
		}
		if total != 30 {
			t.Errorf("%d proxies on the servers, want 30", total)
		}
		// Each half elects its own highest: the partition cut links on
		// both servers.
		halvesElectTheirHighest(t, res, 6)
		if v.Violations == 0 || v.Correct || schedule(res.Faults) != "partition[0,1,2|3,4,5]" {
			t.Errorf("verdict %+v, schedule %q", v, schedule(res.Faults))
		}
	})

	t.Run("restart rewires the proxies on its server", func(t *testing.T) {
		cfg := config(t, "bully", ascending(6), []int{0}, T)
		cfg.Faults = []trial.Fault{{Effect: trial.EffCrash, Name: "crash", Targets: procs(5),
			Start: trial.When{Trigger: trial.AtTime, At: 20 * T}, For: 10 * T}}
		res, _, _ := run(t, r, cfg)
		if len(res.Crashes) != 1 || res.Stats[5] == nil || res.Stats[5].Steps == 0 || res.Refusals != 0 {
			t.Fatalf("crashes %+v, restarted node's stats %+v, refusals %d", res.Crashes, res.Stats[5], res.Refusals)
		}
	})

	t.Run("kill the would-be leader, correct and live", func(t *testing.T) {
		ranks := random(6, 2)
		cfg := config(t, "bully", ranks, []int{lowest(ranks)}, T)
		cfg.Faults = []trial.Fault{trial.CrashFault(highest(ranks), trial.When{Trigger: trial.AfterMessages, K: 2})}
		res, v, _ := run(t, r, cfg)
		_, want, _ := simulate(t, cfg)
		if len(res.Crashes) != 1 || !overran(t, &cfg, res) && (!v.Correct || !v.Live || leaderPos(t, res.Ranks, v.Leader) != leaderPos(t, cfg.Ranks.Slice(), want.Leader)) {
			t.Errorf("crashes %+v; live %+v; simulator %+v", res.Crashes, v, want)
		}
	})

	// A ring needs one server, yet runs on the split cluster kept for its
	// size rather than making a new one (and the next complete trial
	// again every proxy).
	t.Run("a ring trial on the split cluster", func(t *testing.T) {
		if k, err := harness.Servers(6, nodes.RingUni, false, true); k != 1 || err != nil {
			t.Fatalf("6 on a ring under 160: %d servers (%v), want 1", k, err)
		}
		ranks := random(6, 3)
		cfg := config(t, "chang-roberts", ranks, []int{lowest(ranks)}, T)
		res, v, _ := run(t, r, cfg)
		if !v.Correct || !v.Live || len(res.Info.Servers) != 2 {
			t.Errorf("ring on the split cluster: %+v, servers %v", v, res.Info.Servers)
		}
	})

	r.Close()
	// One cluster served the four trials (and any attempt run again):
	// reset put its proxies back on both servers after each (the
	// partition's disabled ones, the restart's upstreams).
	if len(infos) < 4 {
		t.Fatalf("%d trials, want at least 4", len(infos))
	}
	for _, info := range infos[1:] {
		if info.Servers[1] != infos[0].Servers[1] || info.Prefix != infos[0].Prefix {
			t.Fatalf("trials not on one kept cluster: %+v", infos)
		}
	}
	checkReleased(t, nil, infos)
	// The server process's API is gone with it.
	for _, url := range infos[0].Servers {
		if c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second); err == nil {
			c.Close()
			t.Errorf("toxiproxy at %s still answers", url)
		}
	}
}
