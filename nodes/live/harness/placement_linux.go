package harness

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/hostns"
)

// netns deals a cluster's spawn indices to hosts made of network
// namespaces in blocks (indices 0..n/K-1 on the first host, and so on),
// each node's socket on its host's address; the proxies listen on the
// bridge's address in the harness's own namespace, so a message crosses
// the bridge twice: from its sender's host to the proxy, and from the
// proxy to its receiver's host.
type netns struct{ set *hostns.Set }

func newNetns(k int, offs []time.Duration) (placement, error) {
	set, err := hostns.New(os.Getpid(), ownerToken(), k)
	if err != nil {
		return nil, fmt.Errorf("--netns %d: %w", k, err)
	}
	// Before anything starts in a host: a time namespace takes its
	// offset only before its first process.
	if err := shiftClocks(netns{set}, offs); err != nil {
		set.Close()
		return nil, err
	}
	return netns{set}, nil
}

// host is the host of spawn index idx in an n-node cluster.
func (h netns) host(idx, n int) int { return idx * len(h.set.Hosts()) / n }

func (h netns) listen(idx, n int) (*net.TCPListener, error) {
	return h.set.Listen(h.host(idx, n))
}

func (h netns) start(idx, n int, cmd *exec.Cmd) error { return h.set.Start(h.host(idx, n), cmd) }
func (h netns) proxyHost(int) string                  { return h.set.Root().String() }
func (h netns) restartsListen() bool                  { return true }
func (h netns) close() error                          { return h.set.Close() }

// removeDeadHosts removes the namespaces and links of dead runs' --netns
// hosts.
func removeDeadHosts() ([]string, error) {
	removed, err := hostns.RemoveDead(dead)
	if err != nil {
		return removed, fmt.Errorf("removing dead runs' hosts: %w", err)
	}
	return removed, nil
}
