package chaos

import "github.com/electbench/electbench/nodes/trial"

func init() {
	Register(Kind{
		Name: "limit-data", Class: LinkFault, Heals: "remove the toxic",
		Summary: "close each link once it has carried a number of bytes",
		Sim:     "each link counts the encoded bytes of its messages from the fault's start; the message that goes past the limit and every later one is lost until healed (the live link layer would reconnect and the toxic close it again)",
		Live:    "Toxiproxy limit_data toxic (bytes)",
		Params: []field[Fault]{
			countParam("bytes", "", "bytes a link carries before it closes", 0, 1<<50, func(p *trial.DataLimit, v int64) { p.Bytes = v }),
		},
		Link: trial.DataLimit{},
	})
}
