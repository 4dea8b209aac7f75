package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// trialRef names one trial of a plan, as `run --trial` reads it: its
// scenario, algorithm, variant, size and number within them (the
// columns of results.csv), and its runtime when the name gave one.
type trialRef struct {
	scenario, algorithm, variant string
	nodes, trial                 int
	runtime                      string // "": either
}

// trialID is the name `run --trial` reads for row r's trial:
// SCENARIO/ALGORITHM/VARIANT/N/TRIAL, as in default-sweep/bully/classic/8/3.
func trialID(r *reports.Row) string {
	return fmt.Sprintf("%s/%s/%s/%d/%d", r.Scenario, r.Algorithm, r.Variant, r.Nodes, r.Trial)
}

// printedTrial reads the way the terminal's list of unsafe or not live
// trials and a report's failing-trial card name a trial
// ("bully/classic sim default-sweep N=8 trial 3 (seed …)", "… n=8 — trial 3,
// seed …"), so that either can be pasted as the ID.
var printedTrial = regexp.MustCompile(`^(\S+)/(\S*) (\S+) (\S+) [nN]=(\d+)\W+trial (\d+)\b`)

// parseTrialID reads --trial: SCENARIO/ALGORITHM/VARIANT/N/TRIAL (the
// scenario's name may itself hold slashes: the last four fields are read
// from the right), or a trial as run and the report print it.
func parseTrialID(s string) (trialRef, error) {
	if m := printedTrial.FindStringSubmatch(strings.TrimSpace(s)); m != nil {
		n, _ := strconv.Atoi(m[5])
		t, _ := strconv.Atoi(m[6])
		return trialRef{algorithm: m[1], variant: m[2], runtime: m[3], scenario: m[4], nodes: n, trial: t}, nil
	}
	f := strings.Split(s, "/")
	if len(f) < 5 {
		return trialRef{}, fmt.Errorf("--trial %q: want SCENARIO/ALGORITHM/VARIANT/N/TRIAL, as in default-sweep/bully/classic/8/3", s)
	}
	k := len(f) - 4
	n, err := strconv.Atoi(f[k+2])
	if err != nil || n < 1 {
		return trialRef{}, fmt.Errorf("--trial %q: N %q is not a cluster size", s, f[k+2])
	}
	t, err := strconv.Atoi(f[k+3])
	if err != nil || t < 0 {
		return trialRef{}, fmt.Errorf("--trial %q: trial %q is not a trial number (0, 1, ...)", s, f[k+3])
	}
	return trialRef{scenario: strings.Join(f[:k], "/"), algorithm: f[k], variant: f[k+1], nodes: n, trial: t}, nil
}

// selectTrial finds the one trial of plan ref names, or says in one line
// what the plan has at the first field that names nothing in it.
func selectTrial(plan []workloads.Trial, id string, ref trialRef) (workloads.Trial, error) {
	steps := []struct {
		what string
		of   func(t workloads.Trial) string
		want string
	}{
		{"scenario", func(t workloads.Trial) string { return t.Spec.Scenario }, ref.scenario},
		{"algorithm", func(t workloads.Trial) string { return t.Algo.Alg.Name }, ref.algorithm},
		{"variant", func(t workloads.Trial) string { return t.Algo.Variant }, ref.variant},
		{"N", func(t workloads.Trial) string { return strconv.Itoa(t.Nodes) }, strconv.Itoa(ref.nodes)},
		{"runtime", trialRuntime, ref.runtime},
	}
	left := plan
	for _, st := range steps {
		if st.want == "" && st.what == "runtime" {
			continue
		}
		var next []workloads.Trial
		var has []string
		for _, t := range left {
			v := st.of(t)
			if v == st.want {
				next = append(next, t)
			} else if !slices.Contains(has, v) {
				has = append(has, v)
			}
		}
		if len(next) == 0 {
			return workloads.Trial{}, fmt.Errorf("--trial %s: the plan has no %s %q; it has %s", id, st.what, st.want, orList(has))
		}
		left = next
	}
	var found []workloads.Trial
	for _, t := range left {
		if t.Trial == ref.trial {
			found = append(found, t)
		}
	}
	switch {
	case len(found) == 0:
		return workloads.Trial{}, fmt.Errorf("--trial %s: the plan has trials 0..%d of %s/%s/%s/%d (--trials sets how many)",
			id, len(left)-1, ref.scenario, ref.algorithm, ref.variant, ref.nodes)
	case len(found) > 1:
		return workloads.Trial{}, fmt.Errorf("--trial %s: %d trials of the plan have this name (two scenarios of one name?)", id, len(found))
	}
	return found[0], nil
}

// trialRuntime is the runtime column a trial's row will have.
func trialRuntime(t workloads.Trial) string {
	if t.Live {
		return "live"
	}
	return "sim"
}
