package workloads

import (
	"errors"
	"strings"
	"testing"
)

// The synchronous ring algorithms read ids as numbers (ALGORITHMS.md,
// "time-slice"): minted identities are refused with a message naming
// the arrangements they take, and the plan guard refuses a run whose
// smallest id makes it outlast the deadline (variable-speeds: N·2^v_min
// + N rounds).
func TestRoundsIDs(t *testing.T) {
	s := spec(t, "time-slice", "3", "random", "all", "1ms", 1)
	var err error
	if s.IDs, err = ParseIDs("pow(8)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "--ids random, ascending, descending or a list") {
		t.Errorf("time-slice on minted ids: %v, want a refusal naming the arrangements", err)
	}
	for _, c := range []struct {
		algo, ids string
		want      string // "" accepted
	}{
		{"variable-speeds", "12,13,14", "needs 12294 T with the smallest id 12, beyond the deadline of 1300 T"},
		{"variable-speeds", "40,41,42", "needs 3.3e+12 T"},
		{"variable-speeds", "9,7,8", ""},
		{"time-slice", "400,401,402", ""},                                      // 3·400 + 3 = 1203 ≤ 1300
		{"time-slice", "500,501,502", "needs 1503 T with the smallest id 500"}, // beyond 1300
	} {
		s := spec(t, c.algo, "3", c.ids, "all", "1ms", 1)
		err := CheckPlan([]*Spec{s}, Limits{})
		var pe *PlanError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s --ids %s: refused: %v", c.algo, c.ids, err)
		case c.want != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s --ids %s: %v, want a PlanError containing %q", c.algo, c.ids, err, c.want)
		}
	}
}

// The checker judges an algorithm that elects the lowest id by the
// lowest: time-slice's rows are correct and name id 1.
func TestRoundsRowsCorrect(t *testing.T) {
	s := spec(t, "time-slice,variable-speeds", "8", "random", "all", "1ms", 2)
	for _, tr := range s.Plan() {
		row := tr.Watch(t.Context(), Sim, nil).Row
		if !row.Correct || !row.Live || row.Leader != "1" || row.SafetyViolations != 0 {
			t.Errorf("%s trial %d: correct %v live %v leader %q unsafe %d (%s)", row.Algorithm, tr.Trial, row.Correct, row.Live, row.Leader, row.SafetyViolations, row.Violation)
		}
	}
}
