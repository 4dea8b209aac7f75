package shrink

import (
	"bytes"
	"strings"

	"github.com/electbench/electbench/reports"
)

// Violation is what a shrunk scenario must still do: fail the same
// property, for safety with the same kind of violation (nodes/check:
// wrong-leader, disagreement, normal-disagreement), for correct with the
// same first violation kind or none (a safe, live trial that decided a
// leader not rightful stays one, not an undecided trial), and stay
// inside its algorithm's model unless the original did not.
type Violation struct {
	// Property is the failed expectation: safety, correct, liveness, messages, or
	// for an expectation over trials its text up to the colon
	// (turnaround p50 < 10T, terms max >=3).
	Property string
	Kind     string // for safety and correct: the checker's kind of the first violation
	// Overruns says the original trial had messages later than the delay
	// bound D (the overruns column): outside a bounded-delay algorithm's
	// model, which a shrunk trial may be only if the original was.
	Overruns bool
	// Stopped says the original trial failed to run through (an error, a
	// budget): a shrunk one may then too.
	Stopped bool
	// Initiated says a process was told to initiate in the original
	// trial. A shrunk trial whose initiators are all down before they are
	// told fails liveness by its set-up (nobody is asked to elect), not
	// by the algorithm: it does not hold a liveness violation of one that
	// initiated (the shrinker drifted there from a bully without T2).
	Initiated bool
}

func (v Violation) String() string {
	if v.Kind != "" {
		return v.Property + " (" + v.Kind + ")"
	}
	return v.Property
}

// perTrial are the prefixes of the expect column's failures (workloads'
// checkTrial) and the property each names.
var perTrial = []struct{ prefix, property string }{
	{"safety always", "safety"},
	{"correct always", "correct"},
	{"liveness within", "liveness"},
	{"messages ", "messages"},
}

// violations lists every violation an outcome shows: the per-trial ones
// of its expect column, then those over its trial.
func violations(o *Outcome) []Violation {
	var out []Violation
	over := o.Row.Overruns.IsSet() && o.Row.Overruns.Get() > 0
	what, _ := strings.CutPrefix(o.Row.Expect, "fail: ")
	if what != o.Row.Expect {
		for _, part := range strings.Split(what, "; ") {
			for _, p := range perTrial {
				if strings.HasPrefix(part, p.prefix) {
					v := Violation{Property: p.property, Overruns: over}
					if p.property == "safety" || p.property == "correct" {
						v.Kind = violationKind(o.Row)
					}
					out = append(out, v)
				}
			}
		}
	}
	for _, f := range o.Failures {
		if f.Trial >= 0 {
			continue // the expect column's, above
		}
		prop, _, _ := strings.Cut(f.What, ":")
		out = append(out, Violation{Property: prop, Overruns: over})
	}
	return out
}

// violationKind is the kind of a row's first recorded violation
// ("wrong-leader at 1.5ms: ...").
func violationKind(r reports.Row) string {
	if f := strings.Fields(r.Violation); len(f) > 0 {
		return f[0]
	}
	return ""
}

// First is the outcome's first violation; false when it passes.
func First(o *Outcome) (Violation, bool) {
	vs := violations(o)
	if len(vs) == 0 {
		return Violation{}, false
	}
	v := vs[0]
	v.Stopped = o.Row.Error != "" || o.Row.Budget != ""
	v.Initiated = initiated(o)
	return v, true
}

// initiated reports whether a process of o's trial was told to initiate:
// its trace holds an initiate event.
func initiated(o *Outcome) bool { return bytes.Contains(o.Trace, []byte(`"ev":"initiate"`)) }

// HeldBy reports whether o still shows the violation v: the same property
// and kind, a trial that ran through (a trial stopped by an error or a
// budget fails every property) unless v's did not, and no overrun unless
// v had them, and for liveness and correct an initiation if v's trial
// had one.
func (v Violation) HeldBy(o *Outcome) bool {
	if !v.Stopped && (o.Row.Error != "" || o.Row.Budget != "") {
		return false // stopped or failed: not the story the original told
	}
	if !v.Overruns && o.Row.Overruns.IsSet() && o.Row.Overruns.Get() > 0 {
		return false
	}
	if (v.Property == "liveness" || v.Property == "correct") && v.Initiated && !initiated(o) {
		return false
	}
	for _, w := range violations(o) {
		if w.Property == v.Property && w.Kind == v.Kind {
			return true
		}
	}
	return false
}
