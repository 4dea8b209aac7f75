package hunt

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

// Property is what a hunt looks for a violation of. Each is an
// expectation of the scenario file (chaos.Expect): a candidate is written
// expecting it, and it is violated exactly when `electbench run` of the
// candidate would fail that expectation (workloads.CheckRun), so that the
// counterexample's own expect: names the violation.
type Property struct {
	// Name is verdict (safe, live and correct: the row's verdict, as the
	// report words it), safety, liveness, correct, expect (the base
	// scenario's own expectations) or column (a condition on a numeric
	// column of results.csv, Column and Found).
	Name string
	// Within, for liveness: the bound after the last fault's last event
	// (its heal, or its start when it never heals) by which every live
	// process has decided; zero: by the deadline.
	Within chaos.Duration
	// Column and Found, for column: a trial whose Column meets Found
	// (disruptions>=1) violates it; its expectation is the opposite.
	Column string
	Found  chaos.Comparison
}

// Properties are the names --property takes, a column condition aside.
var Properties = []string{"verdict", "safety", "liveness", "correct", "expect"}

// ParseProperty reads --property: one of Properties, or COLUMN OP V with
// a numeric column of results.csv and one of <, <=, >, >= (the
// disruption figures: disruptions>=1, term_inflation>5, stale_leader_s>0).
func ParseProperty(s string) (Property, error) {
	s = strings.TrimSpace(s)
	for _, p := range Properties {
		if s == p {
			return Property{Name: p}, nil
		}
	}
	i := strings.IndexAny(s, "<>=")
	if i <= 0 {
		return Property{}, fmt.Errorf("unknown property %q (want %s, or a column condition such as disruptions>=1)", s, strings.Join(Properties, ", "))
	}
	col := strings.TrimSpace(s[:i])
	if !reports.NumericColumn(col) {
		return Property{}, fmt.Errorf("property %q: %q is not a numeric column of results.csv", s, col)
	}
	c, err := chaos.ParseComparison(s[i:])
	if err != nil {
		return Property{}, fmt.Errorf("property %q: %w", s, err)
	}
	if _, ok := negated[c.Op]; !ok {
		return Property{}, fmt.Errorf("property %q: want a threshold with <, <=, > or >=", s)
	}
	return Property{Name: "column", Column: col, Found: c}, nil
}

// negated is the comparison that holds exactly when one with the key's
// operator does not.
var negated = map[string]string{"<": ">=", "<=": ">", ">": "<=", ">=": "<"}

func (p Property) String() string {
	switch p.Name {
	case "column":
		return p.Column + p.Found.Text
	case "liveness":
		if !p.Within.IsZero() {
			return "liveness within " + p.Within.Text + " of the last fault"
		}
	}
	return p.Name
}

// expectation is the expect: block a candidate is written with: the
// property, with liveness judged by deadline (the trial's deadline in T,
// so that only a run that does not settle fails it), and base the
// scenario's own expect: for property expect.
func (p Property) expectation(deadline string, base *yaml.Node) *yaml.Node {
	switch p.Name {
	case "safety":
		return mapping("safety", "always")
	case "liveness":
		return mapping("liveness", "within "+deadline)
	case "correct":
		return mapping("correct", "always")
	case "verdict":
		return mapping("safety", "always", "correct", "always", "liveness", "within "+deadline)
	case "column":
		bound := negated[p.Found.Op] + strconv.FormatFloat(p.Found.V, 'f', -1, 64)
		return mapping("columns", sequence(mapping("column", p.Column, "max", text(bound))))
	}
	return clone(base)
}

// livenessBound is the liveness bound a candidate that settled is held to
// under --within: from its first initiation, the last fault event's time
// plus Within. ok is false without --within or without an initiation.
func (p Property) livenessBound(faults []time.Duration, firstInitiation, T time.Duration) (time.Duration, bool) {
	if p.Name != "liveness" || p.Within.IsZero() || firstInitiation < 0 {
		return 0, false
	}
	last := firstInitiation
	for _, at := range faults {
		last = max(last, at)
	}
	return last - firstInitiation + p.Within.Of(T), true
}

// shows reports whether a row whose expectation failed shows the
// property's violation itself: a liveness expectation also fails a live
// trial whose decision time it cannot measure (no process initiated: the
// initiator crashed at the start, and a suspicion started the election),
// which is no liveness violation.
func (p Property) shows(row *reports.Row) bool {
	switch p.Name {
	case "liveness":
		return !row.Live || !p.Within.IsZero() && row.DecidedS.IsSet()
	case "verdict":
		return !row.Live || row.SafetyViolations > 0 || !row.Correct
	}
	return true
}

// score is how close a row came to violating a column property: its
// column, negated for < and <= so that higher is always closer, the
// gradient a search climbs (a storm of four disruptions is one partition
// away from six). ok is false for the other properties, which have no
// such measure, and for an empty cell.
func (p Property) score(row *reports.Row) (v float64, ok bool) {
	if p.Name != "column" {
		return 0, false
	}
	if v, ok = row.Number(p.Column); !ok {
		return 0, false
	}
	if p.Found.Op == "<" || p.Found.Op == "<=" {
		return -v, true
	}
	return v, true
}
