package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "reorder", Class: LinkFault, Heals: "stop",
		Summary: "hold messages back so that later ones overtake them",
		Sim:     "with the given probability a message is held back by a uniform draw in [0, delay] and ignores FIFO: later messages on its link may overtake it",
		Live:    "not available: the node's link layer does not reorder (TCP links are FIFO); a live scenario with it is rejected at validation",
		Params: []field[Fault]{
			probabilityParam("", "probability that a message is held back", func(p *trial.Reordering, v float64) { p.P = v }),
			durationParam("delay", "2T", "the longest hold-back", func(p *trial.Reordering, v time.Duration) { p.Hold = v }),
		},
		Link: trial.Reordering{},
	})
}
