package workloads

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/trial"
)

// Canonical describes what the specs compute, one line per field, in a form
// that does not depend on how they were written: sizes as the list they
// expand to, parameters sorted, durations and models in their parsed forms.
// The seed is left out (PlanHash's callers record it apart, since nightly
// runs vary it on purpose), and so is everything that changes only how the
// trials run (parallelism, tracing, output).
func Canonical(specs []*Spec) string {
	var b strings.Builder
	for i, s := range specs {
		fmt.Fprintf(&b, "spec %d\nscenario %s\nruntime %s\n", i, s.Scenario, orSim(s.Runtime))
		for _, a := range s.Algos {
			keys := make([]string, 0, len(a.Params))
			for k := range a.Params {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var ps []string
			for _, k := range keys {
				ps = append(ps, k+"="+a.Params[k])
			}
			fmt.Fprintf(&b, "algo %s/%s", a.Alg.Name, a.Variant)
			if len(ps) > 0 {
				b.WriteString(" " + strings.Join(ps, ","))
			}
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "nodes %v\nids %s%s\ninitiators %s\ntrials %d\nlatency %s\ndeadline %v\n",
			s.Nodes, s.IDs, s.RankBy.suffix(), s.Initiators, s.Trials, s.Latency, s.Deadline)
		for _, c := range s.Crashes {
			fmt.Fprintf(&b, "crash %s\n", c)
		}
		if s.Detector.Kind != "" {
			// As the trials run it: heartbeat(1T,4T) and heartbeat(1ms,4ms)
			// are one detector at T = 1ms in T, two in the live unit.
			fmt.Fprintf(&b, "detector %s\n", s.Detector.In(s.Latency, s.Unit()))
		}
		if s.KeepRunning {
			b.WriteString("keep-running\n")
		}
		if s.LiveUnit && orSim(s.Runtime) == "sim" { // live trials read their parameters so anyway
			b.WriteString("unit live\n")
		}
		if s.Budget != (trial.Budget{}) {
			// A budget decides which trials stop, so it shapes the rows.
			fmt.Fprintf(&b, "budget events=%d inflight=%d\n", s.Budget.MaxEvents, s.Budget.MaxInFlight)
		}
		for _, l := range s.LinkLatency {
			fmt.Fprintf(&b, "link %s -> %s: %s\n", l.From, l.To, l.Latency)
		}
		for _, f := range s.Faults {
			b.WriteString("fault " + canonicalFault(f) + "\n")
		}
		b.WriteString("expect " + canonicalExpect(s.Expect) + "\n")
		if s.TraceHash != "" { // checked as an expectation is: a run of another hash judges otherwise
			b.WriteString("trace-hash " + s.TraceHash + "\n")
		}
		if s.Draws != nil { // they make another trial than the seed's
			fmt.Fprintf(&b, "draws network=%v processes=%v\n", s.Draws.Net, s.Draws.Procs)
		}
	}
	return b.String()
}

// PlanHash is a short hash of Canonical: two runs share it exactly when
// they run the same trials (up to the seed).
func PlanHash(specs []*Spec) string {
	h := sha256.Sum256([]byte(Canonical(specs)))
	return hex.EncodeToString(h[:8])
}

func orSim(runtime string) string {
	if runtime == "" {
		return "sim"
	}
	return runtime
}

// canonicalFault formats a fault's fields; the line it was written on is
// left out, so moving a fault within its file changes nothing. Selectors,
// triggers and durations print as parsed (their String methods).
func canonicalFault(f chaos.Fault) string {
	f.Line = 0
	heal := ""
	if f.Heal != nil {
		heal = f.Heal.String()
	}
	f.Heal = nil
	return fmt.Sprintf("%+v heal=%s", f, heal)
}

func canonicalExpect(e chaos.Expect) string {
	var parts []string
	if e.Safety {
		parts = append(parts, "safety")
	}
	if e.Correct {
		parts = append(parts, "correct")
	}
	if e.Liveness != nil {
		parts = append(parts, "liveness "+e.Liveness.String())
	}
	if e.Messages != nil {
		parts = append(parts, "messages "+e.Messages.Text)
	}
	if e.Turnaround != nil {
		parts = append(parts, "turnaround "+e.Turnaround.Text)
	}
	for _, c := range e.Columns {
		parts = append(parts, "columns "+c.String())
	}
	return strings.Join(parts, "; ")
}
