package chaos

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TriggerKind says what starts (or heals) a fault.
type TriggerKind uint8

const (
	AtStart       TriggerKind = iota // before any process boots (a crashed process never starts)
	AtTime                           // at a virtual time
	ElectionStart                    // at the first initiation of the run
	LeaderElected                    // at the first decision of the run
	AfterMessages                    // right after the K-th election message is sent
)

// Trigger is when a fault starts or heals, plus an optional delay and an
// optional random offset.
type Trigger struct {
	Kind   TriggerKind
	At     Duration // AtTime
	K      int64    // AfterMessages
	Delay  Duration // added after the trigger fires ("leader-elected+2T")
	Spread Spread   // a random offset added too ("leader-elected+uniform(0,75ms)")
}

// Spread is a random offset drawn uniformly from [Lo, Hi] when the trigger
// fires, from the trial's fault stream (trial.FaultRand), so that both
// runtimes draw the same offset for a seed. The zero Spread adds nothing.
type Spread struct {
	Lo, Hi Duration
}

// IsZero reports whether no random offset was written.
func (s Spread) IsZero() bool { return s.Lo.IsZero() && s.Hi.IsZero() }

func (s Spread) String() string { return "uniform(" + s.Lo.Text + "," + s.Hi.Text + ")" }

// Immediate reports whether the trigger is the start itself, with nothing
// added: the fault acts before any process boots.
func (t Trigger) Immediate() bool {
	return t.Kind == AtStart && t.Delay.IsZero() && t.Spread.IsZero()
}

// ParseTrigger reads an `at` value: start, a time (5ms, 3T), or a trigger
// — election-start, leader-elected, after-messages(K) — optionally followed
// by +DURATION and then by +uniform(A,B), a random offset (after a time,
// only the random offset may follow).
func ParseTrigger(s string) (Trigger, error) {
	s = strings.TrimSpace(s)
	base, plus, hasPlus := strings.Cut(s, "+")
	base = strings.TrimSpace(base)
	var spread Spread
	if hasPlus {
		var err error
		if plus, spread, err = cutSpread(s, plus); err != nil {
			return Trigger{}, err
		}
		hasPlus = plus != ""
	}
	var t Trigger
	switch {
	case base == "start":
		t.Kind = AtStart
	case base == "election-start":
		t.Kind = ElectionStart
	case base == "leader-elected":
		t.Kind = LeaderElected
	case strings.HasPrefix(base, "after-messages"):
		arg, ok := call(base, "after-messages")
		k, err := strconv.ParseInt(strings.TrimSpace(arg), 10, 64)
		if !ok || err != nil || k < 1 {
			return Trigger{}, fmt.Errorf("after-messages(K) needs a whole number K ≥ 1, got %q", base)
		}
		t.Kind, t.K = AfterMessages, k
	default:
		d, err := ParseDuration(base)
		if err != nil {
			return Trigger{}, fmt.Errorf("%q is not start, a time (5ms, 3T), election-start, leader-elected or after-messages(K)", s)
		}
		if hasPlus {
			return Trigger{}, fmt.Errorf("%q: add the delay to the time itself", s)
		}
		t.Kind, t.At = AtTime, d
	}
	if hasPlus {
		d, err := ParseDuration(strings.TrimSpace(plus))
		if err != nil {
			return Trigger{}, fmt.Errorf("%q: the delay after + : %w", s, err)
		}
		t.Delay = d
	}
	t.Spread = spread
	return t, nil
}

// cutSpread takes a trailing +uniform(A,B) off what follows a trigger's
// first +, returning the rest (a fixed delay, or nothing).
func cutSpread(s, plus string) (string, Spread, error) {
	rest, last := "", strings.TrimSpace(plus)
	if i := strings.LastIndex(plus, "+"); i >= 0 {
		rest, last = strings.TrimSpace(plus[:i]), strings.TrimSpace(plus[i+1:])
	}
	if strings.Contains(rest, "+") {
		return "", Spread{}, fmt.Errorf("%q: at most a delay and then a random offset may follow the trigger (leader-elected+2T+uniform(0,1T))", s)
	}
	if !strings.HasPrefix(last, "uniform") {
		if rest != "" {
			return "", Spread{}, fmt.Errorf("%q: the second term after the trigger must be a random offset uniform(A,B), got %q", s, last)
		}
		return last, Spread{}, nil
	}
	args, ok := call(last, "uniform")
	lo, hi, two := strings.Cut(args, ",")
	if !ok || !two {
		return "", Spread{}, fmt.Errorf("%q: a random offset is uniform(A,B), two durations, got %q", s, last)
	}
	a, err := ParseDuration(strings.TrimSpace(lo))
	if err != nil {
		return "", Spread{}, fmt.Errorf("%q: the random offset's lower bound: %w", s, err)
	}
	b, err := ParseDuration(strings.TrimSpace(hi))
	if err != nil {
		return "", Spread{}, fmt.Errorf("%q: the random offset's upper bound: %w", s, err)
	}
	// Both bounds in the same unit can be ordered now; a mix of T and a
	// time is ordered once T is known (trial.When.Validate).
	if a.Of(time.Millisecond) > b.Of(time.Millisecond) && sameUnit(a, b) {
		return "", Spread{}, fmt.Errorf("%q: the random offset's bounds are reversed (%s > %s)", s, a, b)
	}
	return rest, Spread{Lo: a, Hi: b}, nil
}

// sameUnit reports whether both durations are in T or both are times.
func sameUnit(a, b Duration) bool {
	return strings.HasSuffix(a.Text, "T") == strings.HasSuffix(b.Text, "T")
}

func (t Trigger) String() string {
	var s string
	switch t.Kind {
	case AtStart:
		s = "start"
	case AtTime:
		s = t.At.Text
	case ElectionStart:
		s = "election-start"
	case LeaderElected:
		s = "leader-elected"
	case AfterMessages:
		s = "after-messages(" + strconv.FormatInt(t.K, 10) + ")"
	}
	if !t.Delay.IsZero() {
		s += "+" + t.Delay.Text
	}
	if !t.Spread.IsZero() {
		s += "+" + t.Spread.String()
	}
	return s
}
