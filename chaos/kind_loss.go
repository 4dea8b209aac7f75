package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "loss", Class: LinkFault, Heals: "stop",
		Summary: "lose each message with a probability",
		Sim:     "each message on the links is lost with the given probability, drawn from the fault stream (counted as sent)",
		Live:    "not available: TCP never loses a message and the node's link layer does not drop one; a live scenario with it is rejected at validation",
		Params:  []field[Fault]{probabilityParam("", "probability that a message is lost", func(p *trial.Loss, v float64) { p.P = v })},
		Link:    trial.Loss{},
	})
}
