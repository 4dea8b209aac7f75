package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "slow-close", Class: LinkFault, Heals: "remove the toxic",
		Summary: "delay the closing of connections",
		Sim:     "no effect: simulated links never close. It is recorded in the schedule so live and simulated runs of one file list the same faults",
		Live:    "Toxiproxy slow_close toxic (delay in ms)",
		Params: []field[Fault]{
			durationParam("delay", "0s", "how long a close is delayed", func(p *trial.SlowClose, v time.Duration) { p.Delay = v }),
		},
		Link: trial.SlowClose{},
	})
}
