package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "host-partition", Class: PartitionFault, Heals: "reconnect",
		Summary: "cut the network between hosts in the kernel (live, --netns): the hosts of the processes the shape separates, both ways or one-way",
		Sim:     "refused: the simulator has no hosts",
		Live: "live runs on --netns hosts only, with or without --agents (refused before any other run): nftables rules in each receiving host's network namespace (made by its agent with --agents) drop every packet from the sending hosts' addresses, removed on heal; " +
			"links within one host are untouched, so name whole hosts (groups of host(h)). A one-way cut drops packets, not a stream: the acknowledgements of TCP connections the other way are dropped too, " +
			"so it stalls the links both ways (unlike partition's one-way, which disables only the proxies one way)",
		Link: trial.HostCut{},
	})
}
