package harness

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/hostns"
	"github.com/electbench/electbench/nodes/live/harness/netcut"
)

// netns deals a cluster's spawn indices to hosts made of network
// namespaces in blocks (indices 0..n/K-1 on the first host, and so on),
// each node's socket on its host's address. Each host runs a Toxiproxy
// server of its own (hostServers), the proxy of a link a→b on b's host:
// a message crosses the bridge once, from its sender's host to the proxy
// on its receiver's, which forwards it inside that host.
//
// A cut between hosts (hostCutter) is an nftables table of the run's
// (netcut, named as the harness's own) in the receiving host's namespace,
// its input hook dropping what the sending host's address sends: it goes
// with the namespace whatever ends the run.
type netns struct {
	set  *hostns.Set
	cuts *hostCuts
}

// hostCuts are the run's nftables tables in its hosts, by host, made at
// the first cut into it, and how many cuts hold each pair of hosts
// (tables is guarded by nested's lock).
type hostCuts struct {
	nested nestedCuts
	tables map[int]*netcut.Table
}

func newNetns(k int, offs []time.Duration) (placement, error) {
	set, err := hostns.New(os.Getpid(), ownerToken(), k)
	if err != nil {
		return nil, fmt.Errorf("--netns %d: %w", k, err)
	}
	n := netns{set, &hostCuts{tables: map[int]*netcut.Table{}}}
	// Before anything starts in a host: a time namespace takes its
	// offset only before its first process.
	if err := shiftClocks(n, offs); err != nil {
		set.Close()
		return nil, err
	}
	return n, nil
}

func (h netns) cutHosts(from, to int) error {
	c := h.cuts
	return c.nested.cut(from, to, func() error {
		t := c.tables[to]
		if t == nil {
			var err error
			if t, err = netcut.OpenIn(h.set.NetNS(to), os.Getpid(), ownerToken()); err != nil {
				return fmt.Errorf("host %d's nftables table: %w", to, err)
			}
			c.tables[to] = t
		}
		hosts := h.set.Hosts()
		if err := t.Cut(hosts[from].Addr, hosts[to].Addr); err != nil {
			return fmt.Errorf("cutting host %d from host %d: %w", to, from, err)
		}
		return nil
	})
}

func (h netns) healHosts(from, to int) error {
	c := h.cuts
	return c.nested.heal(from, to, func() error {
		hosts := h.set.Hosts()
		if err := c.tables[to].Heal(hosts[from].Addr, hosts[to].Addr); err != nil {
			return fmt.Errorf("healing host %d's cut from host %d: %w", to, from, err)
		}
		return nil
	})
}

// hostOf is the host of spawn index idx in an n-node cluster.
func (h netns) hostOf(idx, n int) int { return serverOf(idx, n, h.hostCount()) }

func (h netns) listen(idx, n int) (*net.TCPListener, error) {
	return h.set.Listen(h.hostOf(idx, n))
}

func (h netns) start(idx, n int, cmd *exec.Cmd) error { return h.set.Start(h.hostOf(idx, n), cmd) }

// proxyHost needs the cluster's size to find to's host:
// onHosts.proxyHost asks hostAddr instead, and nothing else asks this.
func (h netns) proxyHost(int) string {
	panic("harness: netns.proxyHost called without the cluster's size (onHosts.proxyHost)")
}

func (h netns) restartsListen() bool               { return true }
func (h netns) close() error                       { return h.set.Close() }
func (h netns) hostCount() int                     { return len(h.set.Hosts()) }
func (h netns) hostAddr(i int) string              { return h.set.Hosts()[i].Addr.String() }
func (h netns) startOn(i int, cmd *exec.Cmd) error { return h.set.Start(i, cmd) }

// removeDeadHosts removes the namespaces and links of dead runs' --netns
// hosts.
func removeDeadHosts() ([]string, error) {
	removed, err := hostns.RemoveDead(dead)
	if err != nil {
		return removed, fmt.Errorf("removing dead runs' hosts: %w", err)
	}
	return removed, nil
}
