package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "crash", Class: ProcessFault, Heals: "restart",
		Summary: "crash-stop the target: it receives nothing, sends nothing, its timers never fire",
		Sim:     "the process stops at once; messages to it are counted as sent and lost. At `start` it never boots and exactly the initiators' detectors suspect it at time 0; otherwise the run's detector follows its model. Healed (for/heal): it restarts as a fresh machine with the same rank, knowing no leader; messages that arrived while it was down are lost, those still in flight reach the new machine",
		Live:    "SIGKILL; healing respawns the node with the same identity",
		Params: []field[Fault]{booleanParam("undetected", "false",
			"no failure detector's schedule ever suspects this crash: an incomplete detector (heartbeats still notice the silence)",
			func(p *trial.Fault, v bool) { p.Undetected = v })},
		Effect: trial.EffCrash,
	})
}
