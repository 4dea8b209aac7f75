package chaos

import yaml "go.yaml.in/yaml/v4"

func init() {
	Register(Kind{
		Name: "crash", Class: ProcessFault, Heals: "restart",
		Summary: "crash-stop the target: it receives nothing, sends nothing, its timers never fire",
		Sim:     "the process stops at once; messages to it are counted as sent and lost. At `start` it never boots and exactly the initiators' detectors suspect it at time 0; otherwise the run's detector follows its model. Healed (for/heal): it restarts as a fresh machine with the same rank, knowing no leader; messages that arrived while it was down are lost, those still in flight reach the new machine",
		Live:    "SIGKILL; healing respawns the node with the same identity",
		Params: []field[Fault]{{name: "undetected", typ: "boolean", def: "false", auto: true,
			doc: "no failure detector's schedule ever suspects this crash: an incomplete detector (heartbeats still notice the silence)",
			dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
				if v, ok := d.boolean(n, path); ok {
					f.Undetected = v
				}
			}}},
	})
	Register(Kind{
		Name: "restart", Class: ProcessFault,
		Summary: "restart crashed targets as fresh machines with the same rank (live ones are left alone)",
		Sim:     "the machine is built anew and started; it knows no leader and its old timers are void",
		Live:    "respawn the node process with the same identity",
	})
	Register(Kind{
		Name: "pause", Class: ProcessFault, Heals: "resume",
		Summary: "pause the target: it handles nothing until resumed, then everything it missed",
		Sim:     "events to the process (messages, timers, detector verdicts, heartbeat ticks) are held and delivered in order when it resumes: its timers fire late and its peers' heartbeats see silence. A pause without for or heal lasts to the end of the run",
		Live:    "SIGSTOP; healing sends SIGCONT",
	})
	Register(Kind{
		Name: "suspect", Class: DetectorFault,
		Summary: "detector inaccuracy: the observers' failure detectors falsely suspect the target, once",
		Sim:     "each observer's algorithm is told Suspect(target) at the instant the fault starts, as the run's detector would",
		Live:    "the harness sends each observer a suspicion over its control channel",
	})
}
