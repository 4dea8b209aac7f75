package chaos

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Expect is what must hold for a scenario's run to pass. A failed
// expectation makes `electbench run` exit 1 after writing every row.
type Expect struct {
	// Safety "always": no trial records a safety violation (a wrong
	// leader, two live leaders at once, two Normal processes disagreeing).
	Safety bool
	// Correct "always": every trial is correct (the row's correct column):
	// every live process decided the same leader, the one the checker
	// takes for rightful. A trial can be safe and live and still not
	// correct: every process believing a leader that crashed.
	Correct bool
	// Liveness "within D": in every trial every live process decides, the
	// run comes to rest, and the last decision is at most D after the first
	// initiation.
	Liveness *Duration
	// NotLive, "liveness: never": no trial is live. The scenario's faults
	// forbid an election (no side of a halves partition holds a majority),
	// so a trial that is not live met what was expected and reports show
	// it so; a live one fails.
	NotLive bool
	// LiveShare, "liveness: at-least P%", is the least share of each
	// algorithm's, variant's and size's trials that are live (a fraction,
	// 0 when not set), judged over the trials: the others may have no
	// leader by the deadline, as the scenario expects (Raft's Figure 16 at
	// 150–151 ms, where split votes can outlast any deadline), and reports
	// show them so.
	LiveShare float64
	// LiveShareText is LiveShare as written ("80%").
	LiveShareText string
	// Messages "at-most N" or "at-most theory*K": every trial sends at most
	// N election messages, or K times the fault-free reference figure of
	// ALGORITHMS.md (exact count or bound) for its configuration.
	Messages *MessageCap
	// Turnaround "pQ < D": per algorithm and size, the Q-th percentile of
	// turnaround over the trials is below D.
	Turnaround *Percentile
	// Columns are conditions on numeric columns of results.csv, each judged
	// per algorithm, variant and size on a statistic over the trials: an
	// incident's signature (docs/incidents.md).
	Columns []ColumnCondition
}

// IsZero reports whether nothing is expected.
func (e Expect) IsZero() bool {
	return !e.Safety && !e.Correct && e.Liveness == nil && !e.NotLive && e.LiveShare == 0 && e.Messages == nil && e.Turnaround == nil && len(e.Columns) == 0
}

// OverTrials reports whether something is judged over the trials of an
// algorithm, variant and size (by workloads.CheckRun) rather than per trial.
func (e Expect) OverTrials() bool {
	return e.Turnaround != nil || len(e.Columns) > 0 || e.LiveShare > 0
}

// MessageCap is a ceiling on election messages per trial.
type MessageCap struct {
	Max    int64   // at-most N (when Theory is 0)
	Theory float64 // at-most theory*K
	Text   string
}

// Percentile is a bound on a percentile of turnaround.
type Percentile struct {
	Q     float64 // 0 < Q ≤ 100
	Below Duration
	Text  string
}

// parseAlways reads the one value safety and correct take.
func parseAlways(s string) (bool, error) {
	if strings.TrimSpace(s) != "always" {
		return false, fmt.Errorf("want always, got %q", s)
	}
	return true, nil
}

func parseLiveness(s string) (*Duration, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "within ")
	if !ok {
		return nil, fmt.Errorf("want within DURATION (within 50T, within 200ms), at-least P%% or never, got %q", s)
	}
	d, err := ParseDuration(strings.TrimSpace(rest))
	if err != nil {
		return nil, err
	}
	return &d, nil
}

func parseMessageCap(s string) (*MessageCap, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "at-most ")
	if !ok {
		return nil, fmt.Errorf("want at-most N or at-most theory*K, got %q", s)
	}
	rest = strings.ReplaceAll(rest, " ", "")
	c := &MessageCap{Text: strings.TrimSpace(s)}
	if k, ok := strings.CutPrefix(rest, "theory"); ok {
		c.Theory = 1
		if k != "" {
			f, err := strconv.ParseFloat(strings.TrimPrefix(k, "*"), 64)
			if !strings.HasPrefix(k, "*") || err != nil || !(f > 0 && f <= 1e6) {
				return nil, fmt.Errorf("want at-most theory*K with a factor 0 < K ≤ 1e6, got %q", s)
			}
			c.Theory = f
		}
		return c, nil
	}
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("want at-most N with a whole number N ≥ 0, got %q", s)
	}
	c.Max = n
	return c, nil
}

func parsePercentile(s string) (*Percentile, error) {
	q, bound, ok := strings.Cut(strings.TrimSpace(s), "<")
	q = strings.TrimSpace(q)
	if !ok || !strings.HasPrefix(q, "p") {
		return nil, fmt.Errorf("want pQ < DURATION (p95 < 20T), got %q", s)
	}
	v, err := strconv.ParseFloat(q[1:], 64)
	if err != nil || !(v > 0 && v <= 100) {
		return nil, fmt.Errorf("percentile %q: want p1 to p100", q)
	}
	d, err := ParseDuration(strings.TrimSpace(bound))
	if err != nil {
		return nil, err
	}
	return &Percentile{Q: v, Below: d, Text: strings.TrimSpace(s)}, nil
}

// ColumnCondition is one item of expect.columns: bounds on statistics over
// the trials of each algorithm, variant and size it applies to, of one
// numeric column of results.csv (reports.NumericColumn).
type ColumnCondition struct {
	Algorithm string // "": every algorithm of the scenario
	Variant   string // "": every variant
	Column    string
	Bounds    []Bound // in the order written; at least one
}

// Applies reports whether the condition judges the trials of an algorithm
// and variant (the variant as the rows name it: etcd-raft's default is etcd).
func (c ColumnCondition) Applies(algorithm, variant string) bool {
	return (c.Algorithm == "" || c.Algorithm == algorithm) && (c.Variant == "" || c.Variant == variant)
}

func (c ColumnCondition) String() string {
	var parts []string
	if c.Algorithm != "" {
		parts = append(parts, "algorithm "+c.Algorithm)
	}
	if c.Variant != "" {
		parts = append(parts, "variant "+c.Variant)
	}
	parts = append(parts, c.Column)
	for _, b := range c.Bounds {
		parts = append(parts, b.String())
	}
	return strings.Join(parts, " ")
}

// Stat is a statistic over the trials of an algorithm, variant and size.
type Stat string

// The statistics a column condition bounds: the field names of expect.columns.
const (
	Median Stat = "median" // the middle value, or the mean of the middle two
	Min    Stat = "min"
	Max    Stat = "max"
)

// Bound is one statistic's condition: "median >=3".
type Bound struct {
	Stat Stat
	Cmp  Comparison
}

func (b Bound) String() string { return string(b.Stat) + " " + b.Cmp.Text }

// Comparison is a condition on a number: = v (a bare number), < v, <= v,
// > v, >= v, or lo..hi (both included).
type Comparison struct {
	Op    string // =, <, <=, >, >=, ..
	V, Hi float64
	Text  string // as written, without spaces
}

// Holds reports whether x meets the comparison.
func (c Comparison) Holds(x float64) bool {
	switch c.Op {
	case "<":
		return x < c.V
	case "<=":
		return x <= c.V
	case ">":
		return x > c.V
	case ">=":
		return x >= c.V
	case "..":
		return x >= c.V && x <= c.Hi
	}
	return x == c.V
}

// ParseComparison reads a comparison as written in expect.columns: a
// number (0, 2.5: equal to it), an operator and a number (">=3", "<0.5"),
// or a range "A..B".
func ParseComparison(s string) (Comparison, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	bad := fmt.Errorf("want a number, a comparison or a range (0, \">=3\", \"<2.5\", \"1..4\"), got %q", s)
	num := func(v string) (float64, bool) {
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	if lo, hi, ok := strings.Cut(t, ".."); ok {
		a, okA := num(lo)
		b, okB := num(hi)
		if !okA || !okB || a > b {
			return Comparison{}, fmt.Errorf("range %q: want A..B with numbers A ≤ B", s)
		}
		return Comparison{Op: "..", V: a, Hi: b, Text: t}, nil
	}
	op := "="
	for _, o := range []string{"<=", ">=", "==", "<", ">", "="} {
		if rest, ok := strings.CutPrefix(t, o); ok {
			op, t = o, rest
			break
		}
	}
	v, ok := num(t)
	if !ok {
		return Comparison{}, bad
	}
	if op == "==" {
		op = "="
	}
	text := op + strconv.FormatFloat(v, 'f', -1, 64)
	if op == "=" {
		text = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return Comparison{Op: op, V: v, Text: text}, nil
}

// parseLiveShare reads "at-least P%" with 0 < P < 100.
func parseLiveShare(s string) (share float64, text string, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "at-least ")
	if !ok {
		return 0, "", fmt.Errorf("want at-least P%% with 0 < P < 100, got %q", s)
	}
	text = strings.TrimSpace(rest)
	p, err := strconv.ParseFloat(strings.TrimSuffix(text, "%"), 64)
	if err != nil || !strings.HasSuffix(text, "%") || !(p > 0 && p < 100) {
		return 0, "", fmt.Errorf("liveness at-least %q: want a share P%% with 0 < P < 100 (at-least 80%%)", text)
	}
	return p / 100, text, nil
}

// liveText is how a liveness expectation that allows trials without a
// leader reads: "never" or "at-least P%".
func liveText(e Expect) string {
	if e.NotLive {
		return "never"
	}
	return "at-least " + e.LiveShareText
}
