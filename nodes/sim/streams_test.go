package sim

import (
	"testing"

	"github.com/electbench/electbench/nodes/trial"
)

// A spare's streams, reseeded for a trial, draw what fresh ones would
// (trial.NetRand, trial.ProcessRand), whatever the trials before drew.
func TestSpareStreamsDrawAsFresh(t *testing.T) {
	sp := &spare{}
	for _, seed := range []uint64{1, 7, 1 << 40} {
		cfg := trial.Config{Seed: seed}
		net, fresh := sp.netRand(&cfg), trial.NetRand(seed, nil, nil)
		for i := range 50 {
			if a, b := net.Uint64(), fresh.Uint64(); a != b {
				t.Fatalf("seed %d: the network's draw %d is %d, a fresh stream's %d", seed, i, a, b)
			}
		}
		for p := range 5 {
			r, fresh := sp.procRand(p, seed), trial.ProcessRand(seed, p)
			for i := range 50 {
				if a, b := r.Int64N(1000), fresh.Int64N(1000); a != b {
					t.Fatalf("seed %d, process %d: draw %d is %d, a fresh stream's %d", seed, p, i, a, b)
				}
			}
		}
	}
	if len(sp.procs) != 5 {
		t.Errorf("the spare keeps %d process streams, want 5", len(sp.procs))
	}
}
