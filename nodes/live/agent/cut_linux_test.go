package agent

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/hostns"
	"github.com/electbench/electbench/nodes/live/harness/netcut"
	"github.com/google/nftables"
)

// TestAgentCutsItsHost: the agent inside host B drops, in B's namespace,
// the packets host A sends it (a dial from A to a socket of B's fails
// while the cut holds, succeeds once healed); a cut from the
// controller's own address leaves the controller's connection carrying
// requests (the exemption); a cut between two hosts of one address is a
// Fail; the last heal leaves no table; and the agent removes its rules once its controller is
// SIGKILLed and the grace period has passed.
func TestAgentCutsItsHost(t *testing.T) {
	set := newHosts(t, 2)
	a, b := set.Hosts()[0].Addr.String(), set.Hosts()[1].Addr.String()
	ctl, agentKey := newKey(t), newKey(t)
	addr := startNamespacedAgent(t, set, 1, fmt.Sprintf("%s %x %x", b, []byte(pub(ctl)), []byte(agentKey)))
	ln, err := set.Listen(1)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The kernel completes a handshake into the listener's backlog: a
	// dial from A succeeds exactly when A's packets reach B.
	reach := func() error {
		return set.Do(0, func() error {
			conn, err := net.DialTimeout("tcp", ln.Addr().String(), 300*time.Millisecond)
			if err == nil {
				conn.Close()
			}
			return err
		})
	}
	if err := reach(); err != nil {
		t.Fatalf("before any cut: %v", err)
	}
	c, err := Dial(context.Background(), addr, ctl, pub(agentKey))
	if err != nil {
		t.Fatal(err)
	}
	request := func(kind Kind, id uint32, from string, want Kind) {
		t.Helper()
		if err := c.Send(&Msg{Kind: kind, ID: id, Addr: from, Args: []string{b}}); err != nil {
			t.Fatal(err)
		}
		if m := next(t, c); m.Kind != want || m.ID != id {
			t.Fatalf("%s from %s: %+v, want kind %d for request %d", kindName(kind), from, m, want, id)
		}
	}
	request(Cut, 1, a, Applied)
	if err := reach(); err == nil {
		t.Fatal("A reached B while the agent cut it")
	}
	root := set.Root().String()
	request(Cut, 2, root, Applied)
	request(Heal, 3, root, Applied) // carried only if the controller's connection is exempt
	request(Cut, 4, b, Fail)
	request(Heal, 5, a, Applied)
	if err := reach(); err != nil {
		t.Fatalf("after the heal: %v", err)
	}
	if tables := agentTables(t, set, 1); len(tables) > 0 {
		t.Errorf("tables %v left in B once every cut healed", tables)
	}
	c.Close()
	killedControllerCuts(t, addr, ctl, agentKey, a, b)
	if tables := agentTables(t, set, 1); len(tables) == 0 {
		t.Fatal("no table of the agent's in B after the SIGKILLed controller's cut")
	}
	waitUntil(t, func() bool { return len(agentTables(t, set, 1)) == 0 }, "the agent's rules removed after its controller was SIGKILLed")
	if err := reach(); err != nil {
		t.Fatalf("after the agent removed its rules: %v", err)
	}
}

// killedControllerCuts runs a controller process that has the agent cut
// from → to, and SIGKILLs it once the cut holds.
func killedControllerCuts(t *testing.T, addr string, ctl, agentKey []byte, from, to string) {
	t.Helper()
	// The agent takes one controller at a time, and the test's own may
	// still be leaving: a refused controller process is started again.
	waitUntil(t, func() bool {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %x %x %s %s", controllerEnv, addr, ctl, []byte(pub(agentKey)), from, to))
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		said := sc.Scan() && strings.HasPrefix(sc.Text(), "pid ")
		cmd.Process.Kill()
		cmd.Wait()
		return said
	}, "controller process whose cut held")
}

// agentTables are the electbench tables in host i's namespace.
func agentTables(t *testing.T, set *hostns.Set, i int) []string {
	t.Helper()
	conn, err := nftables.New(nftables.WithNetNSFd(set.NetNS(i)))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := conn.ListTables()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		if strings.HasPrefix(tb.Name, netcut.Prefix) {
			names = append(names, tb.Name)
		}
	}
	return names
}
