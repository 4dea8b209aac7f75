package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "slow", Class: ProcessFault, Heals: "make it fast again",
		Summary: "make the target slow: each step it takes costs extra service time (a limping process: slow disk or CPU)",
		Sim:     "every event the process handles (a delivery, a timer, a suspicion, an initiation) is handled `service` later, one after another in arrival order (a single-server queue: an event that arrives while it is busy waits for the earlier ones), and what it sends leaves when its step completes; its heartbeat detector still pings and answers at once, so it is alive, just late. Events queued when it heals are still handled as queued; later ones at once. Paused as well (`pause`), it keeps the order a stopped live node keeps, whose service runs on the wall clock: a step whose service ends during the pause is handled at the resumption, one still in service at its time, and what arrived during the pause enters the queue behind them, in arrival order, each step served once. A crash does not end it: restarted, the process is still slow",
		Live:    "the node's event loop holds each step (a delivery, a timer, a suspicion, an initiation) for `service`, one after another, told over the control channel (`slow`); pings, acknowledgements and the harness's other commands are not held, so it keeps heartbeating; a process restarted meanwhile is told again. Healing (`heal`) makes it fast again",
		Params: []field[Fault]{durationParam("service", "", "the extra service time of each step (`5ms`, `3T`)",
			func(p *trial.Fault, v time.Duration) { p.Service = v })},
		Effect: trial.EffSlow,
	})
}
