package hunt

import (
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

func TestParseProperty(t *testing.T) {
	for in, want := range map[string]string{
		"verdict": "verdict", "safety": "safety", " liveness ": "liveness", "correct": "correct", "expect": "expect",
		"disruptions>=1": "disruptions>=1", "term_inflation > 5": "term_inflation>5", "stale_leader_s<0.5": "stale_leader_s<0.5",
	} {
		p, err := ParseProperty(in)
		if err != nil || p.String() != want {
			t.Errorf("ParseProperty(%q) = %v, %v; want %s", in, p, err, want)
		}
	}
	for in, msg := range map[string]string{
		"fairness":          `unknown property "fairness"`,
		"":                  "unknown property",
		"nosuchcolumn>=1":   "not a numeric column",
		"disruptions=1":     "want a threshold with <, <=, > or >=",
		"disruptions1..2":   "unknown property", // no operator at all
		"disruptions>=lots": "want a number",
	} {
		if _, err := ParseProperty(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseProperty(%q) = %v; want an error saying %q", in, err, msg)
		}
	}
}

// Each property's expectation reads as the expect: block that fails
// exactly where the property is violated: a column threshold becomes
// its opposite as the max over the trial.
func TestExpectationIsTheProperty(t *testing.T) {
	for prop, want := range map[string]string{
		"safety":         "safety: always\n",
		"liveness":       "liveness: within 1300T\n",
		"correct":        "correct: always\n",
		"verdict":        "safety: always\ncorrect: always\nliveness: within 1300T\n",
		"disruptions>=2": "columns:\n    - column: disruptions\n      max: <2\n",
		"disruptions<1":  "columns:\n    - column: disruptions\n      max: '>=1'\n",
	} {
		p, err := ParseProperty(prop)
		if err != nil {
			t.Fatal(err)
		}
		b, err := yaml.Marshal(p.expectation("1300T", nil))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%s: expectation\n%s\nwant\n%s", prop, b, want)
		}
		// And the parser reads it as an expectation of a scenario.
		doc := "name: e\nalgorithms: [raft]\nexpect:\n" + indent(string(b))
		if _, err := chaos.Parse("e.yaml", []byte(doc)); err != nil {
			t.Errorf("%s: the expectation does not parse: %v\n%s", prop, err, doc)
		}
	}
}

func indent(s string) string {
	var out strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			out.WriteString("  " + l)
		}
	}
	return out.String()
}

// A live trial whose decision time the liveness expectation cannot
// measure (no initiation: DecidedS empty) shows no liveness violation; a
// trial that is not live does, and a safety violation shows under
// verdict, as does a safe and live trial that is not correct (the row's
// verdict is safe, live and correct).
func TestShows(t *testing.T) {
	live := reports.Row{Live: true, Correct: true}
	stale := reports.Row{Live: true, Leader: "3"}
	dead := reports.Row{}
	unsafe := reports.Row{Live: true, SafetyViolations: 1}
	within := Property{Name: "liveness", Within: chaos.Duration{Text: "50T"}}
	decided := reports.Row{Live: true, DecidedS: reports.Some(0.1)}
	for _, c := range []struct {
		p    Property
		row  reports.Row
		want bool
	}{
		{Property{Name: "liveness"}, live, false},
		{Property{Name: "liveness"}, dead, true},
		{Property{Name: "verdict"}, live, false},
		{Property{Name: "verdict"}, unsafe, true},
		{within, live, false},
		{within, decided, true},
		{Property{Name: "safety"}, unsafe, true},
		{Property{Name: "verdict"}, stale, true},
		{Property{Name: "correct"}, stale, true},
		{Property{Name: "liveness"}, stale, false},
	} {
		if got := c.p.shows(&c.row); got != c.want {
			t.Errorf("%s shows %+v = %v, want %v", c.p, c.row, got, c.want)
		}
	}
}
