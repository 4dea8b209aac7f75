package harness

import (
	"errors"
	"net"
	"os/exec"
	"sync"
)

// placement is where a cluster's nodes run: on this host's loopback
// (loopback, the default), on hosts made of network namespaces
// (Options.Netns; placement_linux.go), or through agents (agents.go). A
// node's listening socket is made on its host, and the node started
// there; where each host runs a Toxiproxy server of its own
// (hostServers), the proxies into its nodes are on it, otherwise on the
// harness's.
type placement interface {
	// listen opens the listening socket of spawn index idx of an n-node
	// cluster, on idx's host.
	listen(idx, n int) (*net.TCPListener, error)
	// start starts cmd, the node process of spawn index idx, on its host.
	start(idx, n int, cmd *exec.Cmd) error
	// proxyHost is the address the proxy of a link into spawn index to
	// listens on.
	proxyHost(to int) string
	// restartsListen says whether a restarted node must be handed a
	// socket on its host (listen): one it opens itself listens on its
	// host's loopback, which only a harness on the same stack reaches.
	restartsListen() bool
	close() error
}

// faulty is a placement whose hosts can fail on their own (agents.go):
// fault is what failed (an agent lost, or one that relayed a line no node
// wrote), which makes every trial since an infrastructure error.
type faulty interface {
	fault() error
}

// hostFault is p's fault, if p can have one.
func hostFault(p placement) error {
	if f, ok := p.(faulty); ok {
		return f.fault()
	}
	return nil
}

// loopback runs every node on this host's loopback.
type loopback struct{}

func (loopback) listen(int, int) (*net.TCPListener, error) {
	return net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
}

func (loopback) start(_, _ int, cmd *exec.Cmd) error { return cmd.Start() }
func (loopback) proxyHost(to int) string             { return proxyHost(to) }
func (loopback) restartsListen() bool                { return false }
func (loopback) close() error                        { return nil }

// hostServers is a placement whose hosts each run a Toxiproxy server of
// their own (netns): the proxy of a link a→b is on b's host's server,
// listening on b's host's address, as docs/multi-host.md lays them out,
// so that what one host holds is only its nodes' share of the cluster.
type hostServers interface {
	placement
	hosted // how many hosts, and whose each spawn index is (serverOf with one server per host)
	// hostAddr is host h's address: its server's API and proxies listen
	// there, and the harness reaches it from its own namespace.
	hostAddr(h int) string
	// startOn starts cmd on host h.
	startOn(h int, cmd *exec.Cmd) error
}

// onHosts is a placement for a cluster of n nodes.
type onHosts struct {
	placement
	n int
}

// proxyHost is the address the proxy of a link into spawn index to
// listens on: its host's where each host has a server of its own
// (hostServers), the placement's otherwise.
func (o onHosts) proxyHost(to int) string {
	if hs, ok := o.placement.(hostServers); ok {
		return hs.hostAddr(hs.hostOf(to, o.n))
	}
	return o.placement.proxyHost(to)
}

// newPlacement is the placement opt asks for.
func newPlacement(opt *Options) (placement, error) {
	switch {
	case opt.Hosts != nil && opt.Netns > 0:
		return nil, errors.New("live: the nodes run on Hosts or on Netns hosts, not both")
	case opt.Agents && opt.Netns == 0:
		return nil, errors.New("live: Agents run in Netns hosts, and Netns is 0")
	case len(opt.ClockOffsets) > 0 && opt.Netns == 0:
		return nil, errors.New("live: clock offsets shift the clocks of --netns hosts: there are none")
	case opt.Hosts != nil:
		return newHosts(opt.Hosts, opt.Log)
	case opt.Netns == 0:
		return loopback{}, nil
	case opt.Agents:
		return newAgents(opt)
	}
	return newNetns(opt.Netns, opt.ClockOffsets)
}

// hostCutter is a placement that cuts the network between its hosts in
// the kernel (netns: nftables rules in the receiving host's namespace):
// trial.HostCut. Cuts of the same pair nest: the last heal removes it.
type hostCutter interface {
	// cutHosts drops every packet host from sends host to; healHosts
	// takes one such cut back.
	cutHosts(from, to int) error
	healHosts(from, to int) error
}

// nestedCuts counts the cuts holding each pair of hosts (from, to), for a
// hostCutter: the first cut of a pair applies it, the last heal removes
// it. Its lock is held while a cut or heal is applied.
type nestedCuts struct {
	mu   sync.Mutex
	held map[[2]int]int
}

// cut applies the cut of from → to with apply unless one already holds.
func (n *nestedCuts) cut(from, to int, apply func() error) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.held == nil {
		n.held = map[[2]int]int{}
	}
	pair := [2]int{from, to}
	if n.held[pair]++; n.held[pair] > 1 {
		return nil
	}
	if err := apply(); err != nil {
		n.held[pair]--
		return err
	}
	return nil
}

// heal takes one cut of from → to back, removing it with apply at the
// last.
func (n *nestedCuts) heal(from, to int, apply func() error) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	pair := [2]int{from, to}
	if n.held[pair] == 0 {
		return nil
	}
	if n.held[pair]--; n.held[pair] > 0 {
		return nil
	}
	return apply()
}
