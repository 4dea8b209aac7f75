package sim

import "github.com/electbench/electbench/nodes/trial"

// Capabilities are what the simulator runs: every latency model, detector
// and fault effect but a cut between hosts, which it has none of, on
// clusters bounded only by memory (the plan guard's concern,
// workloads.MaxNodes).
var Capabilities = trial.Capabilities{Runtime: "sim", RestartsAtStart: true, Lacks: map[string]string{
	trial.HostCut{}.Name(): "the simulator has no hosts: a kernel cut between hosts is the live runtime's on --netns hosts",
}}
