package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "duplicate", Class: LinkFault, Heals: "stop",
		Summary: "deliver each message twice with a probability",
		Sim:     "the copy arrives right after the original; only the original is counted as sent",
		Live:    "not available: the node's link layer does not duplicate; a live scenario with it is rejected at validation",
		Params:  []field[Fault]{probabilityParam("", "probability that a message is duplicated", func(p *trial.Duplication, v float64) { p.P = v })},
		Link:    trial.Duplication{},
	})
}
