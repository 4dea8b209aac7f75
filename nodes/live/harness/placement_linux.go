package harness

import (
	"fmt"
	"net"
	"os"
	"os/exec"

	"github.com/electbench/electbench/nodes/live/harness/hostns"
)

// netns deals a cluster's spawn indices to hosts made of network
// namespaces in blocks (indices 0..n/K-1 on the first host, and so on),
// each node's socket on its host's address. Each host runs a Toxiproxy
// server of its own (hostServers), the proxy of a link a→b on b's host:
// a message crosses the bridge once, from its sender's host to the proxy
// on its receiver's, which forwards it inside that host.
type netns struct{ set *hostns.Set }

func newNetns(k int) (placement, error) {
	set, err := hostns.New(os.Getpid(), ownerToken(), k)
	if err != nil {
		return nil, fmt.Errorf("--netns %d: %w", k, err)
	}
	return netns{set}, nil
}

// hostOf is the host of spawn index idx in an n-node cluster.
func (h netns) hostOf(idx, n int) int { return serverOf(idx, n, h.hosts()) }

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
func (h netns) hosts() int                         { return len(h.set.Hosts()) }
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
