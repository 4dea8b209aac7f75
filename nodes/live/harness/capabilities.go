package harness

import (
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// Capabilities are the live runtime's (live.Capabilities): what Run
// refuses before a trial starts, and what workloads refuses before a run.
func (r *Recorder) Capabilities() trial.Capabilities { return live.Capabilities }
