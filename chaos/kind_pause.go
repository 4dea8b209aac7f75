package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "pause", Class: ProcessFault, Heals: "resume",
		Summary: "pause the target: it handles nothing until resumed, then everything it missed",
		Sim:     "events to the process (messages, timers, detector verdicts, heartbeat ticks) are held and delivered in order when it resumes: its timers fire late and its peers' heartbeats see silence. A pause without for or heal lasts to the end of the run",
		Live:    "SIGSTOP; healing sends SIGCONT",
		Effect:  trial.EffPause,
	})
}
