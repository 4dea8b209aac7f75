package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "suspect", Class: DetectorFault,
		Summary: "detector inaccuracy: the observers' failure detectors falsely suspect the target, once",
		Sim:     "each observer's algorithm is told Suspect(target) at the instant the fault starts, as the run's detector would",
		Live:    "the harness sends each observer a suspicion over its control channel",
		Effect:  trial.EffSuspect,
	})
}
