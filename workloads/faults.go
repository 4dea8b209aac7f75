package workloads

import (
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/trial"
)

// timelineFaults is a spec's fault timeline: the --crash flag's crashes,
// then the per-link latency overrides, active from the start, then the
// scenario's faults, compiled by their kinds (chaos.Fault.Compile) for the
// mean latency T.
func (s *Spec) timelineFaults(T time.Duration) []trial.Fault {
	if f := s.plannedFor(T); f != nil {
		return f
	}
	var out []trial.Fault
	for _, c := range s.Crashes {
		out = append(out, c.compile(T))
	}
	for _, l := range s.LinkLatency {
		out = append(out, chaos.LinkModel(l.From, l.To, l.Latency))
	}
	for i := range s.Faults {
		out = append(out, s.Faults[i].Compile(T))
	}
	return out
}

// faultSchedule is the faults column: every start and heal with its time.
func faultSchedule(evs []trial.FaultEvent) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = e.String()
	}
	return strings.Join(parts, ";")
}

// disputes is the disputes column: what the nodes said they refused of
// one another, in the order they said it.
func disputes(ds []trial.Dispute) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.String()
	}
	return strings.Join(parts, ";")
}
