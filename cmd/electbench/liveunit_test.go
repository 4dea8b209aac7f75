package main

import (
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/workloads"
)

// A live scenario with faults is told when its nodes' unit is far from T:
// at 1ms (unit 6ms) it is; at 20ms (unit 30ms, 1.5T) or without faults
// it is not.
func TestNoteLiveUnit(t *testing.T) {
	crash, err := workloads.ParseCrash("leader@leader-elected")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		latency string
		crashes []workloads.CrashSpec
		want    string
	}{
		{"1ms", []workloads.CrashSpec{crash}, "s: live nodes read their parameters (and a heartbeat detector's) in 6ms (T = 1ms plus the host allowance), 6T, while the faults' times stay in T: against the timeouts they last 1/6 as long as on the simulator"},
		{"2ms", []workloads.CrashSpec{crash}, "in 7ms (T = 2ms plus the host allowance), 3.5T"},
		{"20ms", []workloads.CrashSpec{crash}, ""},
		{"1ms", nil, ""},
	} {
		lat, err := trial.ParseLatency(c.latency)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		noteLiveUnit(&b, &workloads.Spec{Scenario: "s", Runtime: "live", Latency: lat, Crashes: c.crashes})
		if got := b.String(); c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s, %d crashes: said %q, want %q", c.latency, len(c.crashes), got, c.want)
		}
	}
}
