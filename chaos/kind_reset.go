package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "reset", Class: LinkFault, Heals: "remove the toxic",
		Summary: "reset connections (TCP RST), at once or after a timeout",
		Sim:     "the same as a cut starting timeout after the fault: every message on the links is lost, also those in flight (a reset connection loses its buffers; the live link layer reconnects, and the reset repeats while the toxic holds)",
		Live:    "Toxiproxy reset_peer toxic (timeout in ms)",
		Params: []field[Fault]{
			durationParam("timeout", "0s", "the reset happens this long after the fault starts", func(p *trial.Reset, v time.Duration) { p.Timeout = v }),
		},
		Link: trial.Reset{},
	})
}
