package harness

import (
	"os/exec"

	"github.com/electbench/electbench/nodes/live/harness/hostns"
)

// netnsAgents are agents in hosts made of network namespaces whose hosts
// each run a Toxiproxy server of their own (hostServers), started by the
// harness in the host's namespace as netns starts them: the proxy of a
// link a→b listens on b's host, so a message goes from its sender's host
// to its receiver's, and a cut between hosts (cutHosts: the receiving
// host's agent drops what the sending host's address sends) drops it,
// exactly as under netns. Through the controller's proxies no packet
// would go from host to host, and a cut would cut nothing.
type netnsAgents struct {
	*agents
	set *hostns.Set
}

var (
	_ hostServers = netnsAgents{}
	_ hostCutter  = netnsAgents{}
)

func (n netnsAgents) hostAddr(h int) string              { return n.set.Hosts()[h].Addr.String() }
func (n netnsAgents) startOn(h int, cmd *exec.Cmd) error { return n.set.Start(h, cmd) }
