package harness_test

import (
	"cmp"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/hostns"
	"github.com/electbench/electbench/nodes/live/livetest"
	"github.com/electbench/electbench/nodes/trial"
)

// TestNetnsRaftLeaderCrash: live raft at N = 9 on three hosts made of
// network namespaces (Options.Netns; three nodes each), its leader crashed
// once elected and restarted 100T later (on a socket made on its host), as
// `electbench run --netns 3` runs it: safe, a new leader elected after the
// crash, the nodes listening on their hosts' addresses
// (a socket bound there is in that host's namespace), and no namespace, bridge or veth left after Close.
func TestNetnsRaftLeaderCrash(t *testing.T) {
	opt := options(t)
	opt.Netns = 3
	var nodeAddrs []string
	opt.Observe = func(i harness.Info) { nodeAddrs = i.NodeAddrs }
	r, err := harness.New(context.Background(), opt)
	if err != nil {
		t.Fatalf("--netns needs root (CI runs as root): %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			r.Close()
		}
	}()
	const T = 5 * time.Millisecond
	cfg := config(t, "raft", random(9, 1), nil, T)
	cfg.Deadline = 1000 * T
	cfg.Faults = []trial.Fault{{Effect: trial.EffCrash, Name: "crash", Targets: func(v trial.View) []int { return []int{v.Leader()} },
		Start: trial.When{Trigger: trial.LeaderElected}, For: 100 * T}}
	res, j := runJudged(t, r, cfg, true)
	v := j.verdict(&res.Record)
	if v.Violations > 0 {
		t.Errorf("unsafe across hosts: %+v", v.Recorded)
	}
	if len(res.Crashes) != 1 || !res.Crashes[0].WasLeader {
		t.Fatalf("crashes %+v, want the leader's", res.Crashes)
	}
	c := res.Crashes[0]
	if v.Leader == "" || leaderPos(t, res.Ranks, v.Leader) == c.Pos || v.DecidedAt <= c.At {
		t.Errorf("no failover: leader %q decided at %v, the crash of %d at %v", v.Leader, v.DecidedAt, c.Pos, c.At)
	}
	// Restarted on a socket of its host, it hears the new leader.
	heal, decided := time.Duration(-1), false
	for _, e := range j.events {
		switch {
		case e.Kind == trial.EvFault && strings.HasPrefix(e.What, "restart("):
			heal = e.At
		case e.Kind == trial.EvDecide && int(e.P) == c.Pos && heal >= 0:
			decided = true
		}
	}
	if heal < 0 || !decided {
		t.Errorf("the crashed leader, restarted at %v, never decided again", heal)
	}
	// The nodes listen on their hosts' addresses, three to a host.
	hosts := map[string]int{}
	for _, a := range nodeAddrs {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatal(err)
		}
		hosts[host]++
	}
	if len(hosts) != 3 {
		t.Errorf("nodes listen on %v: want three hosts of three", nodeAddrs)
	}
	for h, k := range hosts {
		if k != 3 {
			t.Errorf("host %s holds %d nodes, want 3 (%v)", h, k, nodeAddrs)
		}
	}
	closed = true
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if left := hostsOf(os.Getpid(), cmp.Or(owner.Token(), "x")); len(left) > 0 {
		t.Errorf("after Close: %v", left)
	}
}

// hostsOf names the namespaces and bridge of the --netns hosts of the run
// that pid and token name.
func hostsOf(pid int, token string) []string {
	name := hostns.Name(pid, token)
	left, _ := filepath.Glob("/run/netns/" + name + "-*")
	if _, err := os.Stat("/sys/class/net/" + name); err == nil {
		left = append(left, "bridge")
	}
	return left
}

// tokenOf is the owner token of process pid, a harness this test
// started: this namespace and boot, its own start time.
func tokenOf(t *testing.T, pid int) string {
	t.Helper()
	start, err := owner.StartTicks(pid)
	if err != nil {
		t.Fatal(err)
	}
	me := owner.Token()
	return me[:strings.LastIndexByte(me, 's')+1] + strconv.FormatUint(start, 10)
}

// A --netns harness killed with SIGKILL leaves its hosts (namespaces
// named after its pid and token, a bridge, veths); its nodes die with it, and
// harness.Clean (the next run's, or `electbench clean`'s) removes the
// hosts once it finds the harness gone.
func TestKilledNetnsHarness(t *testing.T) {
	untilCleaned(t, func() bool { return killNetnsHarness(t) })
}

// killNetnsHarness is an attempt of TestKilledNetnsHarness: false when
// the killed run's hosts were gone before harness.Clean removed them
// (untilCleaned).
func killNetnsHarness(t *testing.T) bool {
	h := startHarness(t, netnsHarness)
	defer h.cmd.Process.Kill()
	pid := h.cmd.Process.Pid
	token := tokenOf(t, pid)
	h.cmd.Process.Kill()
	h.cmd.Wait()
	killed := time.Now()
	for len(livetest.Marked(h.mark)) > 0 && time.Since(killed) < deathBound {
		time.Sleep(10 * time.Millisecond)
	}
	if left := livetest.Marked(h.mark); len(left) != 0 {
		t.Errorf("processes of the killed run remain after %v: %v", deathBound, left)
	}
	hosts := func() []string { return hostsOf(pid, token) }
	if left := hosts(); len(left) != 4 {
		t.Logf("the killed run left %v, not its three namespaces and bridge", left)
		return false
	}
	c, err := harness.Clean(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if left := hosts(); len(left) > 0 {
		t.Errorf("the killed run's hosts survive the clean-up: %v (it removed %v)", left, c.Hosts)
	}
	name := hostns.Name(pid, token)
	if !slices.ContainsFunc(c.Hosts, func(h string) bool { return strings.Contains(h, name) }) && !t.Failed() {
		t.Logf("clean removed %v, none of the killed run's %s hosts, which are gone", c.Hosts, name)
		return false
	}
	return true
}

// TestNetnsBeyondOneHost: a complete graph larger than one host may link
// (here under a limit lowered to 20 links: bully at N = 7 sets up 42)
// runs across three --netns hosts, each running a Toxiproxy server of its
// own on its address, holding the proxies into its block of nodes (at
// most 3 nodes, 18 links): the proxy of a link i→j is on host j·3/7's
// server, listening on that host's address.
func TestNetnsBeyondOneHost(t *testing.T) {
	harness.SetMaxLinks(t, 20)
	if err := harness.CheckHost(7, nodes.Complete, true, true); err == nil || !strings.Contains(err.Error(), "--netns") {
		t.Fatalf("7 complete nodes on one host under 20 links: %v, want a refusal pointing at --netns", err)
	}
	if err := harness.CheckHosts(7, nodes.Complete, true, true, 2); err == nil || !strings.Contains(err.Error(), "--netns 3") {
		t.Errorf("7 complete nodes on two hosts (4 on the busiest, 24 links): %v, want a refusal asking for --netns 3", err)
	}
	if err := harness.CheckHosts(7, nodes.Complete, true, true, 3); err != nil {
		t.Fatalf("7 complete nodes on three hosts: %v", err)
	}
	opt := options(t)
	opt.Netns = 3
	var info harness.Info
	opt.Observe = func(i harness.Info) { info = i }
	r := runtime(t, opt)
	const T = 10 * time.Millisecond
	ranks := random(7, 1)
	cfg := config(t, "bully", ranks, everyone(7), T)
	res, v, _ := run(t, r, cfg)
	if !overran(t, &cfg, res) && (!v.Correct || !v.Live) {
		t.Errorf("bully at N = 7 across hosts: %+v", v)
	}
	if len(info.Servers) != 3 || len(info.ServerPIDs) != 3 {
		t.Fatalf("servers %v, processes %v: want one per host", info.Servers, info.ServerPIDs)
	}
	hostOf := map[string]int{} // a host's address → its server
	for s, u := range info.Servers {
		host, _, err := net.SplitHostPort(strings.TrimPrefix(u, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		hostOf[host] = s
	}
	if len(hostOf) != 3 {
		t.Fatalf("servers %v: want three hosts' addresses", info.Servers)
	}
	if len(info.Proxies) != 42 {
		t.Errorf("%d proxies, want 42", len(info.Proxies))
	}
	for i, name := range info.Proxies {
		_, to, _ := strings.Cut(strings.TrimPrefix(name, info.Prefix), "-")
		j, err := strconv.Atoi(to)
		if err != nil {
			t.Fatal(err)
		}
		host, _, err := net.SplitHostPort(info.ProxyAddrs[i])
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := hostOf[host]; !ok || s != j*3/7 {
			t.Errorf("proxy %s into node %d listens on %s, not on host %d's address", name, j, info.ProxyAddrs[i], j*3/7)
		}
	}
}
