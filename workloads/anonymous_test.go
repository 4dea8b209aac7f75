package workloads

import (
	"strings"
	"testing"
)

// ALGORITHMS.md, "Anonymous rings": lcr on --ids anonymous under the
// reference model is reported symmetric, with the round the run ended (2:
// ELECTION then ELECTED, one round each), never as a harness error; under
// random latency the symmetry breaks and the violation is named: every
// process decided it leads, several leaders (safety).
func TestAnonymousRows(t *testing.T) {
	for _, c := range []struct {
		latency, want string
		live          bool
	}{
		{"1ms", "symmetric at 2ms: every process sent and decided the same at every instant until round 2", false},
		{"uniform(1ms,5ms)", "several-leaders at", true},
	} {
		s := spec(t, "lcr", "8", "anonymous", "all", c.latency, 3)
		for _, tr := range s.Plan() {
			row := tr.Watch(t.Context(), Sim, nil).Row
			if row.Error != "" || row.Correct || row.Live != c.live || row.Leader != "" || row.SafetyViolations != 1 || !strings.HasPrefix(row.Violation, c.want) {
				t.Errorf("lcr anonymous %s trial %d: error %q correct %v live %v leader %q unsafe %d violation %q, want %q",
					c.latency, tr.Trial, row.Error, row.Correct, row.Live, row.Leader, row.SafetyViolations, row.Violation, c.want)
			}
		}
	}
	// Nothing else changes for distinct ids: the checker watches no symmetry.
	s := spec(t, "lcr", "8", "random", "all", "1ms", 1)
	if row := s.Plan()[0].Watch(t.Context(), Sim, nil).Row; !row.Correct || row.Violation != "" {
		t.Errorf("lcr random: correct %v violation %q", row.Correct, row.Violation)
	}
	// Synchronous-round algorithms need distinct ids and refuse the ring.
	s = spec(t, "lcr", "3", "random", "all", "1ms", 1)
	var err error
	if s.IDs, err = ParseIDs("anonymous"); err != nil {
		t.Fatal(err)
	}
	s.Algos = spec(t, "time-slice", "3", "random", "all", "1ms", 1).Algos
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "needs distinct ids") {
		t.Errorf("time-slice on an anonymous ring: %v", err)
	}
	// itai-rodeh is anonymous already: refused there, and on distinct ids
	// any one leader is correct (Algorithm.ElectsAny).
	s.Algos = spec(t, "itai-rodeh", "3", "random", "all", "1ms", 1).Algos
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "anonymous already") {
		t.Errorf("itai-rodeh on an anonymous ring: %v", err)
	}
	s = spec(t, "itai-rodeh", "16", "random", "all", "uniform(1ms,5ms)", 20)
	s.Algos[0].Params = map[string]string{"k": "2"}
	for _, tr := range s.Plan() {
		if row := tr.Watch(t.Context(), Sim, nil).Row; !row.Correct || !row.Live || row.Leader == "" || row.Violation != "" {
			t.Errorf("itai-rodeh trial %d: correct %v live %v leader %q violation %q", tr.Trial, row.Correct, row.Live, row.Leader, row.Violation)
		}
	}
}
