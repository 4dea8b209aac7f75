package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "bandwidth", Class: LinkFault, Heals: "remove the toxic",
		Summary: "limit each link to a rate in KB/s",
		Sim:     "a message occupies the link for its encoded size ÷ rate; later messages wait for it (serialization delay)",
		Live:    "Toxiproxy bandwidth toxic (rate in KB/s)",
		Params: []field[Fault]{
			// KB/s, as Toxiproxy counts; the trial's rate is bytes/s.
			countParam("rate", "", "KB/s (1 KB = 1000 bytes)", 1, 1<<40, func(p *trial.Bandwidth, v int64) { p.Rate = v * 1000 }),
		},
		Link: trial.Bandwidth{},
	})
}
