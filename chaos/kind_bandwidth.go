package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "bandwidth", Class: LinkFault, Heals: "remove the toxic",
		Summary: "limit each link to a rate in KB/s",
		Sim:     "a message occupies the link for its encoded size ÷ rate; later messages wait for it (serialization delay)",
		Live:    "Toxiproxy bandwidth toxic (rate in KB/s)",
		Params: []field[Fault]{
			countParam("rate", "", "KB/s (1 KB = 1000 bytes)", 1, 1<<40, func(f *Fault) *int64 { return &f.Rate }),
		},
		Effect: func(f *Fault, tf *trial.Fault, _ time.Duration) {
			tf.Effect, tf.Rate = trial.EffBandwidth, f.Rate*1000 // KB/s, as Toxiproxy counts
		},
	})
}
