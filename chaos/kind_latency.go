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
			durationParam("latency", "", "added one-way latency", func(f *Fault) *Duration { return &f.Latency }),
			durationParam("jitter", "0s", "± this much, uniformly", func(f *Fault) *Duration { return &f.Jitter }),
		},
		Effect: func(f *Fault, tf *trial.Fault, T time.Duration) {
			tf.Effect, tf.Latency, tf.Jitter = trial.EffDelay, f.Latency.Of(T), f.Jitter.Of(T)
		},
	})
}
