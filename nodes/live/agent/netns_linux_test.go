package agent

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness/hostns"
)

// TestAgentsInNamespaces: an agent started inside each of two hosts made
// of network namespaces (as the harness would start them) is reached by
// the controller across the bridge, and the processes it starts run in
// its host's namespace, listening on its host's address; they are gone
// once the controller has left for the grace period.
func TestAgentsInNamespaces(t *testing.T) {
	set := newHosts(t, 2) // its clean-up registered first, so run last: after the agents have stopped
	ctl := newKey(t)
	var pids []int32
	for i, h := range set.Hosts() {
		agentKey := newKey(t)
		addr := startNamespacedAgent(t, set, i, fmt.Sprintf("%s %x %x", h.Addr, []byte(pub(ctl)), []byte(agentKey)))
		c, err := Dial(context.Background(), addr, ctl, pub(agentKey))
		if err != nil {
			t.Fatalf("host %d: %v", i, err)
		}
		defer c.Close()
		if err := c.Send(&Msg{Kind: Start, ID: 1, Addr: h.Addr.String(), Args: []string{"sh", "-c", "readlink /proc/self/ns/net; exec sleep 100"}}); err != nil {
			t.Fatal(err)
		}
		started := next(t, c)
		if started.Kind != Started || !strings.HasPrefix(started.Addr, h.Addr.String()+":") {
			t.Fatalf("host %d: %+v, want Started listening on %s", i, started, h.Addr)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join("/run/netns", h.Name), &st); err != nil {
			t.Fatal(err)
		}
		if m, want := next(t, c), fmt.Sprintf("net:[%d]", st.Ino); m.Kind != Line || string(m.Data) != want {
			t.Fatalf("host %d: %+v, want the line %q: the process in the host's namespace", i, m, want)
		}
		pids = append(pids, started.Code)
		c.Close()
	}
	for _, pid := range pids {
		waitUntil(t, func() bool { return gone(pid) }, "end of a namespaced agent's process after its controller left")
	}
}

// startNamespacedAgent starts the test binary as an agent (agentMain) in
// host i, stopped when the test ends, and returns its address.
func startNamespacedAgent(t *testing.T, set *hostns.Set, i int, env string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), agentEnv+"="+env)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Start(i, cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("agent in host %d: %v", i, err)
		}
	})
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("the agent in host %d said nothing", i)
	}
	addr, ok := strings.CutPrefix(sc.Text(), "listening ")
	if !ok {
		t.Fatalf("the agent in host %d said %q, want its address", i, sc.Text())
	}
	return addr
}

// newHosts makes k hosts of network namespaces for a test, closed when it
// ends (a clean-up registered now, so run after those registered later).
func newHosts(t *testing.T, k int) *hostns.Set {
	t.Helper()
	set, err := hostns.New(os.Getpid(), owner.Token(), k)
	if err != nil {
		t.Fatalf("hosts made of namespaces need root (CI runs as root): %v", err)
	}
	t.Cleanup(func() {
		if err := set.Close(); err != nil {
			t.Error(err)
		}
	})
	return set
}
