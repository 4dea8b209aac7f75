package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "duplicate", Class: LinkFault, Heals: "stop",
		Summary: "deliver each message twice with a probability",
		Sim:     "the copy arrives right after the original; only the original is counted as sent",
		Live:    "not available: the node's link layer does not duplicate; a live scenario with it is rejected at validation",
		Params:  []field[Fault]{probabilityParam("", "probability that a message is duplicated")},
		Effect: func(f *Fault, tf *trial.Fault, _ time.Duration) {
			tf.Effect, tf.P = trial.EffDuplicate, f.Probability
		},
	})
}
