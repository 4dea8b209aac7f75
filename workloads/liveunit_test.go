package workloads

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Spec.LiveUnit has the simulator's machines read their parameters in the
// live unit, as live nodes do: at T = 1ms that unit is 6ms, so raft's
// election timeouts, and with them its first election, come about six times
// later in T, while a ring algorithm, which has no timeout, is unchanged.
// The plan hash tells the two apart, so that a resume never mixes them.
func TestLiveUnitOnTheSimulator(t *testing.T) {
	unit := trial.LiveUnit(time.Millisecond, 0)
	if unit != 6*time.Millisecond {
		t.Fatalf("LiveUnit(1ms) = %v, want 6ms", unit)
	}
	inT := spec(t, "raft,chang-roberts", "5", "random", "lowest", "1ms", 3)
	var inLive Spec = *inT
	inLive.LiveUnit = true
	if PlanHash([]*Spec{inT}) == PlanHash([]*Spec{&inLive}) {
		t.Fatal("the plan hash does not tell the live unit from T")
	}
	a, b := rowsOf(t, inT.Plan(), 2), rowsOf(t, inLive.Plan(), 2)
	if len(a) != 6 || len(b) != 6 {
		t.Fatalf("%d and %d rows, want 6 each", len(a), len(b))
	}
	for i := range a {
		if !a[i].Correct || !b[i].Correct || !a[i].TurnaroundT.IsSet() || !b[i].TurnaroundT.IsSet() {
			t.Fatalf("row %d: correct %v/%v, turnaround %v/%v", i, a[i].Correct, b[i].Correct, a[i].TurnaroundT, b[i].TurnaroundT)
		}
		ta, tb := a[i].TurnaroundT.Get(), b[i].TurnaroundT.Get()
		switch a[i].Algorithm {
		case "raft":
			// The timeout is drawn in the unit; the round trips after it
			// stay in T: between 4 and 6 times as late.
			if tb < 4*ta || tb > 6*ta {
				t.Errorf("raft trial %d: turnaround %.2fT in the live unit against %.2fT in T; want 4–6 times", a[i].Trial, tb, ta)
			}
		case "chang-roberts":
			if ta != tb || a[i].Messages != b[i].Messages {
				t.Errorf("chang-roberts trial %d: %.2fT and %d messages in the live unit against %.2fT and %d in T; want the same", a[i].Trial, tb, b[i].Messages, ta, a[i].Messages)
			}
		}
	}
}

// Live trials read their parameters in the live unit whatever --unit says:
// the flag does not make a live plan another one (a resume with or without
// it continues the same run).
func TestLiveUnitOnALivePlan(t *testing.T) {
	s := spec(t, "raft", "5", "random", "lowest", "10ms", 1)
	s.Runtime = "live"
	var u Spec = *s
	u.LiveUnit = true
	if PlanHash([]*Spec{s}) != PlanHash([]*Spec{&u}) {
		t.Fatal("--unit live changed a live plan's hash")
	}
}
