package harness_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/agent"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/pow"
)

// TestHostsAgentsStartedByHand: with a hosts file naming two agents
// started by hand (here on this machine's loopback), live raft at N = 4
// runs through them, its nodes the agents' children: safe, a leader;
// each agent runs the proxies into its two nodes, on its own Toxiproxy
// server (the hosts file names no proxies: address).
func TestHostsAgentsStartedByHand(t *testing.T) {
	dir := t.TempDir()
	ctl := mintTestKey(t)
	if err := pow.WriteFile(filepath.Join(dir, "ctl.id"), &ctl.Identity); err != nil {
		t.Fatal(err)
	}
	if err := pow.WriteKeyFile(filepath.Join(dir, "ctl.id.key"), ctl.Private); err != nil {
		t.Fatal(err)
	}
	file := "controller: ctl.id.key\nhosts:\n"
	var agentPIDs []int
	for i := range 2 {
		pid, addr, key := startHandAgent(t, dir, i)
		agentPIDs = append(agentPIDs, pid)
		file += fmt.Sprintf("  - name: h%d\n    agent: %s\n    key: %x\n", i, addr, []byte(key))
	}
	path := filepath.Join(dir, "hosts.yaml")
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	hs, err := harness.ReadHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	opt := options(t)
	opt.Hosts = hs
	var (
		parents []int
		info    harness.Info
	)
	opt.Observe = func(i harness.Info) {
		info = i
		for _, pid := range i.PIDs {
			ppid, err := parentOf(pid)
			if err != nil {
				t.Error(err)
			}
			parents = append(parents, ppid)
		}
	}
	r := runtime(t, opt)
	res, j := runJudged(t, r, config(t, "raft", random(4, 1), nil, 5*time.Millisecond), true)
	if v := j.verdict(&res.Record); v.Violations > 0 || v.Leader == "" {
		t.Errorf("through agents started by hand: %+v", v)
	}
	if len(parents) != 4 {
		t.Fatalf("%d node processes observed, want 4", len(parents))
	}
	proxiesOnHosts(t, info, 4, []string{"127.0.0.1", "127.0.0.1"})
	for _, ppid := range parents {
		if !slices.Contains(agentPIDs, ppid) {
			t.Errorf("a node's parent is %d, not one of the agents %v", ppid, agentPIDs)
		}
	}
}

// mintTestKey is a key pair of no puzzle, as the agents' are.
func mintTestKey(t *testing.T) pow.Key {
	t.Helper()
	k, _, err := pow.Mint(context.Background(), pow.Params{Hash: pow.SHA256, Iterations: 1}, pow.MintOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// startHandAgent starts this test binary as agent i on loopback, pinning
// the controller identity dir/ctl.id, as a user starts one by hand; it is
// stopped (SIGTERM) when the test ends.
func startHandAgent(t *testing.T, dir string, i int) (pid int, addr string, key ed25519.PublicKey) {
	t.Helper()
	k := mintTestKey(t)
	keyFile := filepath.Join(dir, fmt.Sprintf("agent%d.key", i))
	if err := pow.WriteKeyFile(keyFile, k.Private); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "agent", "--listen", "127.0.0.1:0", "--key", keyFile, "--controller", filepath.Join(dir, "ctl.id"))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("agent %d said nothing", i)
	}
	addr, key, err = agent.ParseListening(sc.Text())
	if err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, addr, key
}

// TestReadHosts: a hosts file is decoded strictly; each mistake is
// refused naming the field; proxies: may be left out.
func TestReadHosts(t *testing.T) {
	dir := t.TempDir()
	ctl := mintTestKey(t)
	if err := pow.WriteKeyFile(filepath.Join(dir, "ctl.key"), ctl.Private); err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("%x", []byte(mintTestKey(t).Private.Public().(ed25519.PublicKey)))
	host := "  - {name: a, agent: '10.0.0.2:7000', key: " + key + "}\n"
	good := "controller: ctl.key\nproxies: 10.0.0.1\nhosts:\n" + host
	for _, c := range []struct{ file, want string }{
		{good, ""},
		{"controller: ctl.key\nhosts:\n" + host, ""}, // proxies: is optional, and unused
		{good + "hsots: []\n", "field hsots not found"},
		{"controller: ctl.key\nproxies: 10.0.0.1\nhosts:\n  - {name: a, agent: '10.0.0.2:7000', key: " + key + ", port: 1}\n", "field port not found"},
		{"controller: ctl.key\nproxies: 10.0.0.1\nhosts: []\n", "no host under hosts:"},
		{"controller: ctl.key\nproxies: here\nhosts:\n" + host, "proxies: \"here\" is not an IP address"},
		{"proxies: 10.0.0.1\nhosts:\n" + host, "controller: no key file"},
		{"controller: nosuch.key\nproxies: 10.0.0.1\nhosts:\n" + host, "controller: "},
		{good + strings.Replace(host, "'10.0.0.2:7000'", "'10.0.0.3:7000'", 1), `name "a" is empty or given twice`},
		{"controller: ctl.key\nproxies: 10.0.0.1\nhosts:\n  - {name: a, agent: 10.0.0.2, key: " + key + "}\n", "host a: agent \"10.0.0.2\": want host:port"},
		{"controller: ctl.key\nproxies: 10.0.0.1\nhosts:\n  - {name: a, agent: '10.0.0.2:7000', key: 00ff}\n", "host a: key \"00ff\""},
	} {
		path := filepath.Join(dir, "hosts.yaml")
		if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := harness.ReadHosts(path)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: %v, want %q", c.file, err, c.want)
		}
	}
}

// TestPlacementOptionsRefused: agents without namespaces to run in, and
// both a hosts file and namespaces, are refused at New.
func TestPlacementOptionsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*harness.Options)
		want string
	}{
		{"agents without netns", func(o *harness.Options) { o.Agents = true }, "Agents run in Netns hosts"},
		{"hosts and netns", func(o *harness.Options) { o.Hosts, o.Netns = &harness.Hosts{}, 2 }, "on Hosts or on Netns hosts, not both"},
	} {
		opt := options(t)
		c.set(&opt)
		r, err := harness.New(context.Background(), opt)
		if err == nil {
			r.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
