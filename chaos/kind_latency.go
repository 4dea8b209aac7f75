package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "latency", Class: LinkFault, Heals: "remove the toxic",
		Summary: "add latency ± jitter to every message on the links",
		Sim:     "each message takes its latency model's draw plus latency ± uniform jitter (never below zero); links stay FIFO",
		Live:    "a second Toxiproxy latency toxic on each link, added to the link's own (latency, jitter in ms); its jitter is drawn by Toxiproxy, not from the seed",
		Params: []field[Fault]{
			durationParam("latency", "", "added one-way latency", func(p *trial.Delay, v time.Duration) { p.Latency = v }),
			durationParam("jitter", "0s", "± this much, uniformly", func(p *trial.Delay, v time.Duration) { p.Jitter = v }),
		},
		Link: trial.Delay{},
	})
}
