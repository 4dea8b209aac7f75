package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "jitter-burst", Class: LinkFault, Heals: "remove the toxic",
		Summary: "a burst of jitter: every message on the links waits an extra uniform draw in [0, jitter]",
		Sim:     "each message takes its latency model's draw plus a uniform draw in [0, jitter] from the fault stream; links stay FIFO, so a message may also wait for an earlier, slower one",
		Live:    "a Toxiproxy latency toxic of jitter/2 ± jitter/2 on each link (whole milliseconds); its draws are Toxiproxy's, not from the seed",
		Params: []field[Fault]{
			// Uniform on [0, J] is J/2 ± J/2: the latency effect both
			// runtimes already apply, so this kind needs no runtime
			// support of its own.
			durationParam("jitter", "", "the largest extra delay of a message", func(p *trial.Delay, j time.Duration) {
				p.Latency, p.Jitter = j/2, j-j/2
			}),
		},
		Link: trial.Delay{},
	})
}
