package sim

import "github.com/electbench/electbench/nodes/trial"

// Capabilities are what the simulator runs: every latency model, detector
// and fault effect, on clusters bounded only by memory (the plan guard's
// concern, workloads.MaxNodes).
var Capabilities = trial.Capabilities{Runtime: "sim", RestartsAtStart: true}
