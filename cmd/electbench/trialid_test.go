package main

import (
	"testing"

	"github.com/electbench/electbench/reports"
)

// TestParseTrialID pins the names --trial reads: trialID's, one whose
// scenario holds a slash, and a trial as the terminal's list and a
// report card's title print it.
func TestParseTrialID(t *testing.T) {
	row := reports.Row{Scenario: "raft-figure16-150-150", Algorithm: "raft", Variant: "default", Nodes: 5, Trial: 913, Runtime: "sim", Seed: 7}
	for _, c := range []struct {
		in   string
		want trialRef
	}{
		{trialID(&row), trialRef{scenario: "raft-figure16-150-150", algorithm: "raft", variant: "default", nodes: 5, trial: 913}},
		{"a/b/lcr/default/4/0", trialRef{scenario: "a/b", algorithm: "lcr", variant: "default", nodes: 4}},
		{"bully/two-phase sim bully-short-t1 N=6 trial 1 (seed 12905260078595524590): 2 safety violation(s)",
			trialRef{scenario: "bully-short-t1", algorithm: "bully", variant: "two-phase", runtime: "sim", nodes: 6, trial: 1}},
		{"  bully/classic live default-faults n=5 — trial 0, seed 8038239006130193684",
			trialRef{scenario: "default-faults", algorithm: "bully", variant: "classic", runtime: "live", nodes: 5}},
	} {
		got, err := parseTrialID(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseTrialID(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "3", "a/b/c/d", "s/a/v/0/1", "s/a/v/4/-1", "s/a/v/four/1"} {
		if _, err := parseTrialID(bad); err == nil {
			t.Errorf("parseTrialID(%q) accepted", bad)
		}
	}
}
