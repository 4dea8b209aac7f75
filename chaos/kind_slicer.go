package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

func init() {
	Register(Kind{
		Name: "slicer", Class: LinkFault, Heals: "remove the toxic",
		Summary: "cut data into small slices sent with a delay between them",
		Sim:     "a message of S bytes is cut into slices of average-size ± size-variation bytes (drawn from the fault stream); it arrives (slices − 1) × delay later",
		Live:    "Toxiproxy slicer toxic (average_size, size_variation in bytes, delay in µs)",
		Params: []field[Fault]{
			countParam("average-size", "", "mean slice size, bytes", 1, 1<<30, func(p *trial.Slice, v int64) { p.Size = v }),
			countParam("size-variation", "0", "± variation of a slice's size, bytes (below average-size)", 0, 1<<30, func(p *trial.Slice, v int64) { p.Variation = v }),
			durationParam("delay", "0s", "between two slices", func(p *trial.Slice, v time.Duration) { p.Delay = v }),
		},
		Link: trial.Slice{},
	})
}
