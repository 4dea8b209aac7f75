package chaos

import (
	"fmt"
	"strconv"
	"strings"
)

// Expect is what must hold for a scenario's run to pass. A failed
// expectation makes `electbench run` exit 1 after writing every row.
type Expect struct {
	// Safety "always": no trial records a safety violation (a wrong
	// leader, two live leaders at once, two Normal processes disagreeing).
	Safety bool
	// Liveness "within D": in every trial every live process decides, the
	// run comes to rest, and the last decision is at most D after the first
	// initiation.
	Liveness *Duration
	// Messages "at-most N" or "at-most theory*K": every trial sends at most
	// N election messages, or K times the fault-free reference figure of
	// ALGORITHMS.md (exact count or bound) for its configuration.
	Messages *MessageCap
	// Turnaround "pQ < D": per algorithm and size, the Q-th percentile of
	// turnaround over the trials is below D.
	Turnaround *Percentile
}

// IsZero reports whether nothing is expected.
func (e Expect) IsZero() bool {
	return !e.Safety && e.Liveness == nil && e.Messages == nil && e.Turnaround == nil
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

func parseSafety(s string) (bool, error) {
	if strings.TrimSpace(s) != "always" {
		return false, fmt.Errorf("want always, got %q", s)
	}
	return true, nil
}

func parseLiveness(s string) (*Duration, error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "within ")
	if !ok {
		return nil, fmt.Errorf("want within DURATION (within 50T, within 200ms), got %q", s)
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
