//go:build unix

package harness_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// The golden transcripts of the algorithm tests (nodes/*/testdata, N = 5,
// the smallest cluster they run) run live too: real processes, real TCP,
// a constant latency toxic, the transcript's ranks in its arrangement (the
// nodes mint their own identities, placed in that order) and its
// initiators. Timing on a real host is not the reference model's, so what
// must agree is what no ordering of the deliveries can change: the
// messages of every kind and the leader, by position. The simulator is
// held to the transcripts line for line (nodes/sim's
// TestGoldenTranscriptsAreSimulated); this holds the live runtime to the
// same files.
//
// The ring family's and bully's transcripts run (bully's with its crash
// before the start, as a crash fault); the others are listed with why.
func TestGoldenTranscriptsLive(t *testing.T) {
	timed := map[string]string{
		// Bully's answers race its timer T1 (2D), and a process that
		// hears no OK in time declares itself: the counts depend on the
		// host's delays, not on the ranks alone.
		// A timer fired by hand at 0 (nodetest's Fire): no run of any
		// runtime starts that way (see nodes/sim's test).
		"quorum/chubby-lease-renewal": "a timer fired by hand",
		"quorum/raft-campaign":        "a timer fired by hand",
		// Mutual exclusion: no leader, and requests that meet in flight
		// are ordered by the host's timing (ricart-agrawala's and
		// maekawa's replies and inquiries; the token ring circulates until
		// the test stops it at 12T).
		"mutex/central":         "no leader to compare",
		"mutex/maekawa":         "no leader to compare",
		"mutex/maekawa-inquire": "no leader to compare",
		"mutex/ricart-agrawala": "no leader to compare",
		"mutex/token-ring":      "no leader to compare",
	}
	files, err := filepath.Glob("../../*/testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden transcripts found: %v", err)
	}
	r := runtime(t, options(t))
	ran := 0
	for _, path := range files {
		name := filepath.Base(filepath.Dir(filepath.Dir(path))) + "/" + strings.TrimSuffix(filepath.Base(path), ".txt")
		if _, ok := timed[name]; ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			g, err := trial.ReadTranscript(string(raw), time.Millisecond)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			cfg := config(t, g.Spec, g.Ranks, g.Initiators, 5*time.Millisecond)
			cfg.Params = g.Params
			for _, p := range g.Down {
				cfg.Faults = append(cfg.Faults, trial.CrashFault(p, trial.When{Trigger: trial.AtStart}))
			}
			res, v, _ := run(t, r, cfg)
			if got, want := res.MessagesByKind(), g.Sent(); !maps.Equal(got, want) {
				t.Errorf("live sent %v, the transcript %v", got, want)
			}
			decided := g.Decided()
			if len(decided) != len(g.Ranks)-len(g.Down) {
				t.Fatalf("the transcript has %d decisions for %d live processes", len(decided), len(g.Ranks)-len(g.Down))
			}
			leader, err := nodes.ParseRank(decided[slices.Min(slices.Collect(maps.Keys(decided)))])
			if err != nil {
				t.Fatal(err)
			}
			if !v.Correct || !v.Live || v.Violations != 0 || leaderPos(t, res.Ranks, v.Leader) != slices.Index(g.Ranks, leader) {
				t.Errorf("live verdict %+v; the transcript's leader is position %d", v, slices.Index(g.Ranks, leader))
			}
		})
		ran++
	}
	if ran < 3 {
		t.Fatalf("ran %d transcripts live; the ring family has 3", ran)
	}
}
