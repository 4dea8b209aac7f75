package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "blackhole", Class: LinkFault, Heals: "remove the toxic",
		Summary: "stop all data on the links (Toxiproxy's timeout toxic)",
		Sim:     "the same as a cut: every message on the links is lost while it holds, also those in flight. The timeout (when Toxiproxy closes the connection) changes nothing at the message level",
		Live:    "Toxiproxy timeout toxic (timeout in ms; 0 keeps the connection open, dropping data, until healed)",
		Params: []field[Fault]{
			durationParam("timeout", "0s", "after this, the connection is closed (live runs)", func(p *trial.Blackhole, v time.Duration) { p.Timeout = v }),
		},
		Link: trial.Blackhole{},
	})
}
