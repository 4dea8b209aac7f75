package chaos

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Duration is a span written as a Go duration ("5ms", "1.5s") or in units of
// the mean one-way latency T ("3T", "0.5T"); it is resolved once T is known.
type Duration struct{ Text string }

// ParseDuration checks s and keeps it for Of.
func ParseDuration(s string) (Duration, error) {
	d, err := nodes.ParseDuration(s, time.Millisecond, 0)
	if err != nil {
		return Duration{}, err
	}
	if d < 0 {
		return Duration{}, fmt.Errorf("%q is negative", s)
	}
	if d > maxDuration {
		return Duration{}, fmt.Errorf("%q is longer than a day of virtual time", s)
	}
	return Duration{Text: s}, nil
}

// maxDuration bounds every duration of a scenario (taking T ≤ 1ms; a file
// with a larger T is checked again when T is known).
const maxDuration = 24 * time.Hour

// Of resolves the duration for a mean latency T.
func (d Duration) Of(T time.Duration) time.Duration {
	if d.Text == "" {
		return 0
	}
	v, err := nodes.ParseDuration(d.Text, T, 0)
	if err != nil {
		return 0 // checked by ParseDuration
	}
	return v
}

// IsZero reports whether the duration was not given.
func (d Duration) IsZero() bool { return d.Text == "" }

func (d Duration) String() string { return d.Text }
