package harness_test

import (
	"cmp"
	"context"
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// TestAgentsProxiesOnHosts: through agents on three hosts made of
// network namespaces (`--netns 3 --agents`), each host's agent runs its
// host's Toxiproxy server, its API on the host's loopback, reached
// through the agent: live raft at N = 6 is safe with a leader, every
// proxy of a link into node j listens on j's host's address (so a
// message to another host crosses that host's proxy alone), and each
// host's server, asked through its agent, holds exactly the proxies into
// its host's nodes; none is the harness's process. A complete graph
// beyond one host's link limit (bully at N = 7 under a limit lowered to
// 20, as TestNetnsBeyondOneHost) runs on the same hosts. After Close no
// server, agent, node or namespace is left.
func TestAgentsProxiesOnHosts(t *testing.T) {
	opt := agentsOptions(t, 3)
	var infos []harness.Info
	var (
		servers []int        // the hosts' Toxiproxy server processes, seen while the first trial runs
		agents  map[int]bool // and the agents, its nodes' parents
	)
	opt.Observe = func(i harness.Info) {
		infos = append(infos, i)
		if agents == nil {
			agents = agentsOf(t, i.PIDs)
			servers = hostServers(t, agents)
		}
	}
	r, err := harness.New(context.Background(), opt)
	if err != nil {
		t.Fatalf("--netns --agents needs root (CI runs as root): %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			r.Close()
		}
	}()
	const T = 5 * time.Millisecond
	res, j := runJudged(t, r, config(t, "raft", random(6, 1), nil, T), true)
	if v := j.verdict(&res.Record); v.Violations > 0 || v.Leader == "" {
		t.Errorf("raft through agents, proxies on the hosts: %+v", v)
	}
	proxiesOnHosts(t, infos[0], 6, hostAddrs(t, infos[0], 3))
	if len(servers) != 3 {
		t.Errorf("Toxiproxy server processes %v under the agents, want one a host", servers)
	}

	harness.SetMaxLinks(t, 20)
	if err := harness.CheckHost(7, nodes.Complete, true, true); err == nil {
		t.Fatal("7 complete nodes on one host under 20 links: accepted; the run below would prove nothing")
	}
	cfg := config(t, "bully", random(7, 1), everyone(7), 2*T)
	res, v, _ := run(t, r, cfg)
	if !overran(t, &cfg, res) && (!v.Correct || !v.Live) {
		t.Errorf("bully at N = 7 across hosts through agents: %+v", v)
	}
	proxiesOnHosts(t, infos[1], 7, hostAddrs(t, infos[1], 3))

	closed = true
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range slices.Concat(servers, slices.Collect(maps.Keys(agents))) {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("process %d (a host's Toxiproxy server or agent) survives Close", pid)
		}
	}
	if left := hostsOf(os.Getpid(), cmp.Or(owner.Token(), "x")); len(left) > 0 {
		t.Errorf("after Close: %v", left)
	}
}

// proxiesOnHosts checks, of a trial of n nodes through agents on the
// hosts whose addresses are addrs, that no server is the harness's
// process, that the proxy of every link into spawn index j listens on the
// address of j's host (⌊j·k/n⌋ of k hosts), and that host h's server,
// asked through its agent, holds exactly the proxies into its nodes.
func proxiesOnHosts(t *testing.T, info harness.Info, n int, addrs []string) {
	t.Helper()
	k := len(addrs)
	if len(info.Servers) != k || len(info.ServerPIDs) != 0 {
		t.Fatalf("servers %v, processes of the harness's %v: want %d, none the harness's", info.Servers, info.ServerPIDs, k)
	}
	held := make([][]string, k) // by host: the proxies into its nodes
	for i, name := range info.Proxies {
		_, to, _ := strings.Cut(strings.TrimPrefix(name, info.Prefix), "-")
		j, err := strconv.Atoi(to)
		if err != nil {
			t.Fatal(err)
		}
		h := j * k / n
		held[h] = append(held[h], name)
		host, _, err := net.SplitHostPort(info.ProxyAddrs[i])
		if err != nil {
			t.Fatal(err)
		}
		if host != addrs[h] {
			t.Errorf("proxy %s into node %d listens on %s, not on host %d's address %s", name, j, info.ProxyAddrs[i], h, addrs[h])
		}
	}
	for h, url := range info.Servers {
		names, err := toxi.NewClient(url).Names(context.Background(), info.Prefix)
		if err != nil {
			t.Fatalf("host %d's server, through its agent: %v", h, err)
		}
		slices.Sort(held[h])
		if !slices.Equal(names, held[h]) {
			t.Errorf("host %d's server holds %v, want the proxies into its nodes %v", h, names, held[h])
		}
	}
}

// hostAddrs are the addresses of the k --netns hosts of a trial: those
// its nodes listen on, in order (198.18.S.2, .3, ...).
func hostAddrs(t *testing.T, info harness.Info, k int) []string {
	t.Helper()
	var addrs []netip.Addr
	for _, a := range info.NodeAddrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(addrs, ap.Addr()) {
			addrs = append(addrs, ap.Addr())
		}
	}
	slices.SortFunc(addrs, netip.Addr.Compare)
	if len(addrs) != k {
		t.Fatalf("the nodes listen on %v, want %d hosts' addresses", addrs, k)
	}
	out := make([]string, k)
	for i, a := range addrs {
		out[i] = a.String()
	}
	return out
}

// agentsOf are the parents of the node processes pids: their agents.
func agentsOf(t *testing.T, pids []int) map[int]bool {
	t.Helper()
	agents := map[int]bool{}
	for _, pid := range pids {
		ppid, err := parentOf(pid)
		if err != nil {
			t.Fatal(err)
		}
		agents[ppid] = true
	}
	return agents
}

// hostServers are the Toxiproxy server processes of agents, each
// checked to serve its API on its host's loopback.
func hostServers(t *testing.T, agents map[int]bool) []int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "toxiproxy-server") {
			continue
		}
		if ppid, err := parentOf(pid); err != nil || !agents[ppid] {
			continue
		}
		if !strings.HasSuffix(string(cmdline), "--listen\x00127.0.0.1\x00") {
			t.Errorf("host server %d runs %q: want its API on its host's loopback", pid, cmdline)
		}
		out = append(out, pid)
	}
	return out
}
