package external_test

import (
	"strings"
	"testing"
	"time"
)

// The step budget's test programs (node_test.go): the step timeout they
// run under, what the starved one computes, how long the sleepy one
// sleeps.
const (
	budgetTimeout = 300 * time.Millisecond
	starvedCPU    = 20 * time.Millisecond
	sleepyFor     = 3 * budgetTimeout
)

// NODE-PROTOCOL.md, "Step timeout and start-up": a program that sleeps
// past its step timeout fails: sleeping is charged, as computing is.
func TestSleepingStepFails(t *testing.T) {
	_, err := run(t, algorithm(t, "sleepy", budgetTimeout), 3, []int{0})
	want := "go-sleepy n0: step 3 (elect): did not end its step within the step timeout (300ms)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one saying %q", err, want)
	}
}

// NODE-PROTOCOL.md, "Step timeout and start-up": init is bounded by the time the program
// had, not by the wall clock: a program blocked before init_ok fails once
// it has been charged initTimeouts step timeouts, as does one computing.
func TestStartupBudget(t *testing.T) {
	for _, mode := range []string{"sleepinit", "spininit"} {
		start := time.Now()
		_, err := run(t, algorithm(t, mode, budgetTimeout), 2, []int{0})
		want := "did not answer init within 3 step timeouts (900ms): "
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v; want one saying %q", mode, err, want)
		}
		if wall := time.Since(start); wall < 3*budgetTimeout {
			t.Errorf("%s: failed after %v, before its budget of 3 step timeouts", mode, wall)
		}
	}
}
