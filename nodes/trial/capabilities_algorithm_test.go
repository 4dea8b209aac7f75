package trial

import (
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// A live-only algorithm is refused by every runtime but live, with its
// reason; any other runs everywhere.
func TestCheckAlgorithmLiveOnly(t *testing.T) {
	lib := &nodes.Algorithm{Name: "lib", LiveOnly: "it owns its goroutines and clocks"}
	plain := &nodes.Algorithm{Name: "plain"}
	sim := &Capabilities{Runtime: "sim"}
	live := &Capabilities{Runtime: "live"}
	err := sim.CheckAlgorithm(lib)
	if err == nil || !strings.Contains(err.Error(), "lib runs only with --runtime live: it owns its goroutines and clocks") {
		t.Fatalf("sim accepted a live-only algorithm or said it unclearly: %v", err)
	}
	for _, c := range []*Capabilities{sim, live} {
		if err := c.CheckAlgorithm(plain); err != nil {
			t.Errorf("%s refused an algorithm of both runtimes: %v", c.Runtime, err)
		}
	}
	if err := live.CheckAlgorithm(lib); err != nil {
		t.Errorf("live refused a live-only algorithm: %v", err)
	}
	if lib.InAll() || lib.Runtimes() != "live" || plain.Runtimes() != "sim,live" {
		t.Errorf("InAll %v, Runtimes %q and %q", lib.InAll(), lib.Runtimes(), plain.Runtimes())
	}
}
