package harness_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/hostns"
	"github.com/electbench/electbench/nodes/live/livetest"
	"github.com/electbench/electbench/nodes/trial"
)

// agentsOptions runs this test binary as the nodes and as an agent in each
// of k hosts made of network namespaces (Options.Agents).
func agentsOptions(t *testing.T, k int) harness.Options {
	opt := options(t)
	opt.Netns, opt.Agents, opt.Agent = k, true, []string{opt.Node[0], "agent"}
	return opt
}

// TestAgentsRaftLeaderCrash: live raft at N = 6 on two hosts made of
// network namespaces, through an agent in each (`electbench run --netns 2
// --agents`), three trials, the leader crashed once elected and
// restarted 100T later (the agent opens the new process's socket): every
// trial safe with a new leader after the crash; the nodes are the agents'
// children, not the harness's, three listening on each host's address;
// after Close no node, agent, namespace or key is left.
func TestAgentsRaftLeaderCrash(t *testing.T) {
	opt := agentsOptions(t, 2)
	var (
		infos   []harness.Info
		parents []int // of each trial's first node, while it runs
	)
	opt.Observe = func(i harness.Info) {
		infos = append(infos, i)
		ppid, err := parentOf(i.PIDs[0])
		if err != nil {
			t.Error(err)
		}
		parents = append(parents, ppid)
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
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := config(t, "raft", random(6, seed), nil, T)
		cfg.Seed, cfg.Deadline = seed, 1000*T
		cfg.Faults = []trial.Fault{{Effect: trial.EffCrash, Name: "crash", Targets: func(v trial.View) []int { return []int{v.Leader()} },
			Start: trial.When{Trigger: trial.LeaderElected}, For: 100 * T}}
		res, j := runJudged(t, r, cfg, true)
		v := j.verdict(&res.Record)
		if v.Violations > 0 {
			t.Errorf("seed %d: unsafe through agents: %+v", seed, v.Recorded)
		}
		if len(res.Crashes) != 1 || !res.Crashes[0].WasLeader {
			t.Fatalf("seed %d: crashes %+v, want the leader's", seed, res.Crashes)
		}
		c := res.Crashes[0]
		// The crashed leader may lead again only once restarted, 100T
		// after the crash, when the others had elected none by then: a
		// loaded host stretched their election past it (2.2 s beside
		// four busy loops at load 30), and the restarted process won.
		again := v.Leader != "" && leaderPos(t, res.Ranks, v.Leader) == c.Pos
		if v.Leader == "" || v.DecidedAt <= c.At || again && v.DecidedAt <= c.At+100*T {
			t.Errorf("seed %d: no failover: leader %q decided at %v, the crash of %d at %v", seed, v.Leader, v.DecidedAt, c.Pos, c.At)
		} else if again {
			t.Logf("seed %d: the host's load stretched the failover past the restart: the restarted %d decided at %v, the crash at %v", seed, c.Pos, v.DecidedAt, c.At)
		}
	}
	if len(infos) != 3 {
		t.Fatalf("%d trials observed, want 3", len(infos))
	}
	hosts := map[string]int{}
	for _, a := range infos[0].NodeAddrs {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			t.Fatal(err)
		}
		hosts[host]++
	}
	for h, k := range hosts {
		if len(hosts) != 2 || k != 3 {
			t.Errorf("host %s holds %d nodes, want two hosts of three (%v)", h, k, infos[0].NodeAddrs)
		}
	}
	var pids []int
	for i, info := range infos {
		pids = append(pids, info.PIDs...)
		if parents[i] == os.Getpid() {
			t.Errorf("trial %d: node process %d is the harness's child: no agent started it", i+1, info.PIDs[0])
		}
	}
	closed = true
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("node process %d survives Close", pid)
		}
	}
	if left := hostsOf(os.Getpid(), cmp.Or(owner.Token(), "x")); len(left) > 0 {
		t.Errorf("after Close: %v", left)
	}
	if keys := agentDirs(t, os.Getpid()); len(keys) > 0 {
		t.Errorf("the agents' keys survive Close: %v", keys)
	}
}

// TestAgentForgedLine: a line relayed by an agent that is no control line
// of the node protocol (here a "node" that prints one) is the agent's
// fault, never a node's event: the trial is an infrastructure error
// naming the agent, and so is every later one on that host.
func TestAgentForgedLine(t *testing.T) {
	opt := agentsOptions(t, 1)
	opt.Node = []string{"sh", "-c", `echo '{"type":"hello"} forged'; exec sleep 30`, "sh"}
	r, err := harness.New(context.Background(), opt)
	if err != nil {
		t.Fatalf("--netns --agents needs root (CI runs as root): %v", err)
	}
	defer r.Close()
	cfg := config(t, "raft", random(2, 1), nil, 5*time.Millisecond)
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := r.Run(ctx, cfg)
		cancel()
		if !errors.Is(err, trial.ErrInfrastructure) || !strings.Contains(err.Error(), "the agent of host 0") {
			t.Fatalf("a forged line: %v, want an infrastructure error naming the agent of host 0", err)
		}
	}
}

// A harness running nodes through agents, killed with SIGKILL, leaves
// no agent, no host's Toxiproxy server and no node (the kernel kills the
// agents with it, and their servers and nodes with them); harness.Clean
// removes its hosts and the agents' keys.
func TestKilledAgentsHarness(t *testing.T) {
	untilCleaned(t, func() bool { return killAgentsHarness(t) })
}

// killAgentsHarness is an attempt of TestKilledAgentsHarness: false when
// the killed run's hosts were gone before harness.Clean removed them
// (untilCleaned).
func killAgentsHarness(t *testing.T) bool {
	h := startHarness(t, agentsHarness)
	defer h.cmd.Process.Kill()
	pid := h.cmd.Process.Pid
	token := tokenOf(t, pid)
	if len(agentDirs(t, pid)) != 1 {
		t.Fatalf("the harness keeps no agents' keys: the check below would prove nothing")
	}
	h.cmd.Process.Kill()
	h.cmd.Wait()
	killed := time.Now()
	for len(livetest.Marked(h.mark)) > 0 && time.Since(killed) < deathBound {
		time.Sleep(10 * time.Millisecond)
	}
	if left := livetest.Marked(h.mark); len(left) != 0 {
		t.Errorf("agents, servers or nodes of the killed run remain after %v: %v", deathBound, left)
	}
	if left := hostsOf(pid, token); len(left) != 3 {
		t.Logf("the killed run left %v, not its two namespaces and bridge", left)
		return false
	}
	c, err := harness.Clean(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if left := append(hostsOf(pid, token), agentDirs(t, pid)...); len(left) > 0 {
		t.Errorf("the killed run's hosts or keys survive the clean-up: %v (it removed %v)", left, c)
	}
	name := hostns.Name(pid, token)
	if !slices.ContainsFunc(c.Hosts, func(h string) bool { return strings.Contains(h, name) }) && !t.Failed() {
		t.Logf("clean removed %v, none of the killed run's %s hosts, which are gone", c.Hosts, name)
		return false
	}
	return true
}

// agentDirs are the directories of agents' keys that the harness of pid
// made.
func agentDirs(t *testing.T, pid int) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), harness.TempPattern+"agents-*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "owner.pid")); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			out = append(out, d)
		}
	}
	return out
}

// parentOf is the parent of process pid.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no PPid in /proc/%d/status", pid)
}
