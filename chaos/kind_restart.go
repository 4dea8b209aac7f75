package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "restart", Class: ProcessFault,
		Summary: "restart crashed targets as fresh machines with the same rank (live ones are left alone)",
		Sim:     "the machine is built anew and started; it knows no leader and its old timers are void",
		Live:    "respawn the node process with the same identity",
		Effect:  trial.EffRestart,
	})
}
