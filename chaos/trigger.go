package chaos

import (
	"fmt"
	"strconv"
	"strings"
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

// Trigger is when a fault starts or heals, plus an optional delay.
type Trigger struct {
	Kind  TriggerKind
	At    Duration // AtTime
	K     int64    // AfterMessages
	Delay Duration // added after the trigger fires ("leader-elected+2T")
}

// ParseTrigger reads an `at` value: start, a time (5ms, 3T), or a trigger
// — election-start, leader-elected, after-messages(K) — optionally followed
// by +DURATION.
func ParseTrigger(s string) (Trigger, error) {
	s = strings.TrimSpace(s)
	base, plus, hasPlus := strings.Cut(s, "+")
	base = strings.TrimSpace(base)
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
	return t, nil
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
	return s
}
