package live

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Capabilities are what the live runtime runs, declared here once and read
// by every check: workloads refuses a flag or a scenario file by them
// before anything starts, and the harness refuses a trial.Config by them
// (its injector implements exactly the link effects not lacked, which a
// harness test holds). They live beside the node rather than in the
// harness so that workloads, which may not reach the harness's process
// control and Toxiproxy, reads them too.
var Capabilities = trial.Capabilities{
	Runtime: "live",
	// Every node is a process and every directed link a proxy.
	MaxNodes: 128,
	Grain:    time.Millisecond,
	GrainWhy: "live links delay in whole milliseconds (Toxiproxy's latency toxic)",
	// The inaccurate detector's false suspicions are drawn by the
	// simulator; live nodes watch each other.
	Detectors: []string{"perfect(D)", "heartbeat(P,τ)"},
	Lacks: map[string]string{
		trial.Duplication{}.Name(): "the node's link layer cannot duplicate a message in this build",
		trial.Reordering{}.Name():  "the node's link layer cannot reorder messages in this build (TCP keeps each link FIFO)",
		trial.LinkModel{}.Name():   "per-link latency models are simulator-only; live links all take network.latency",
	},
	MintsIDs:      true,
	OwnHeartbeats: true,
}
