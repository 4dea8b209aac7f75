package trial

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Overruns count the election messages over the bound, and only a trial of
// a bounded-delay algorithm, under a latency model with a largest delay
// and no fault that stretches delays, is outside its model for them.
func TestOutsideModel(t *testing.T) {
	kMaint := nodes.RegisterKind("TRIAL_TEST_MAINT", nodes.MaintenanceClass)
	rec := NewRecord(3, 5*time.Millisecond, DefaultDetector(5*time.Millisecond))
	rec.Bound = 10 * time.Millisecond
	for _, d := range []time.Duration{5, 10, 11, 30} {
		rec.Delayed(kElection, d*time.Millisecond)
	}
	rec.Delayed(kMaint, time.Second) // not an election message
	if rec.Overruns != 2 || rec.Delays.Count != 4 {
		t.Fatalf("overruns %d of %d delays, want 2 of 4", rec.Overruns, rec.Delays.Count)
	}
	bounded := &nodes.Algorithm{Name: "b", BoundedDelay: true}
	cfg := func(alg *nodes.Algorithm, lat Latency, faults ...Fault) *Config {
		return &Config{Algorithm: alg, Latency: lat, Faults: faults}
	}
	within := rec
	within.Overruns = 0
	for _, tc := range []struct {
		name string
		cfg  *Config
		rec  *Record
		want bool
	}{
		{"bounded delay, constant latency", cfg(bounded, Constant(5*time.Millisecond)), &rec, true},
		{"bounded delay, uniform latency, a cut", cfg(bounded, Uniform{Lo: time.Millisecond, Hi: 9 * time.Millisecond}, Fault{Link: Cut{}}), &rec, true},
		{"no overrun", cfg(bounded, Constant(5*time.Millisecond)), &within, false},
		{"an algorithm safe without a bound", cfg(&nodes.Algorithm{Name: "a"}, Constant(5*time.Millisecond)), &rec, false},
		{"normal latency: D is a quantile", cfg(bounded, Normal{MeanD: 5 * time.Millisecond, SD: time.Millisecond}), &rec, false},
		{"a delay fault", cfg(bounded, Constant(5*time.Millisecond), Fault{Link: Delay{}}), &rec, false},
		{"a pause", cfg(bounded, Constant(5*time.Millisecond), Fault{Effect: EffPause}), &rec, false},
	} {
		if got := OutsideModel(tc.cfg, tc.rec); got != tc.want {
			t.Errorf("%s: outside %v, want %v", tc.name, got, tc.want)
		}
	}
}
