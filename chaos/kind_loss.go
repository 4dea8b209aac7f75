package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "loss", Class: LinkFault, Heals: "stop",
		Summary: "lose each message with a probability",
		Sim:     "each message on the links is lost with the given probability, drawn from the fault stream (counted as sent)",
		Live:    "the sending node's link layer loses each message on the links with the given probability instead of writing it, told over the control channel (`lose`), its draws from a stream of its own per fault and sender seeded from the trial's seed (the same losses for a seed as far as a live run's order of sends repeats); a lost message is counted as sent and lost, as in the simulator. Detector pings are lost too; a sender restarted meanwhile is told again. Healing (`heal`) tells the senders to stop",
		Params:  []field[Fault]{probabilityParam("", "probability that a message is lost", func(p *trial.Loss, v float64) { p.P = v })},
		Link:    trial.Loss{},
	})
}
