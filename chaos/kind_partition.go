package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "partition", Class: PartitionFault, Heals: "reconnect",
		Summary: "cut the links between groups of processes (shape), both ways or one-way",
		Sim:     "messages on a cut link are lost, both those sent while it holds and those in flight when it starts; healing reconnects the links",
		Live:    "the proxies of the cut links are disabled (Toxiproxy enabled=false, which also drops open connections) and re-enabled on heal",
		Link:    trial.Cut{},
	})
}
