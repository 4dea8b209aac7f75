package workloads

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// CrashSpec is one --crash SELECTOR[@WHEN].
//
// Selectors: highest, lowest, would-be-leader (the highest process not
// crashed by an earlier selector), leader (whoever the latest decision named,
// at the crash's instant), initiator (the first initiating position),
// index:K (position K), random(k) (k distinct random positions).
//
// WHEN: start (the default: crashed before the run; at time 0 exactly the
// initiators' detectors suspect it), a virtual time (5ms, 3T),
// after-messages:K, or leader-elected (the first decision of the run).
type CrashSpec struct {
	Selector string // highest, lowest, would-be-leader, leader, initiator, index, random
	K        int    // for index:K and random(k)
	When     trial.Trigger
	At       string // for a virtual time, as typed (may be in units of T)
	Msgs     int64  // for after-messages:K
	text     string
}

func (c CrashSpec) String() string { return c.text }

// ParseCrash reads one --crash value.
func ParseCrash(s string) (CrashSpec, error) {
	s = strings.TrimSpace(s)
	sel, when, hasWhen := strings.Cut(s, "@")
	c := CrashSpec{text: s, When: trial.AtStart}
	switch {
	case sel == "highest" || sel == "lowest" || sel == "would-be-leader" || sel == "leader" || sel == "initiator":
		c.Selector = sel
	case strings.HasPrefix(sel, "index:"):
		k, err := strconv.Atoi(strings.TrimPrefix(sel, "index:"))
		if err != nil || k < 0 {
			return CrashSpec{}, fmt.Errorf("--crash %q: index:K needs a position K ≥ 0", s)
		}
		c.Selector, c.K = "index", k
	case strings.HasPrefix(sel, "random(") && strings.HasSuffix(sel, ")"):
		k, err := strconv.Atoi(sel[len("random(") : len(sel)-1])
		if err != nil || k < 1 {
			return CrashSpec{}, fmt.Errorf("--crash %q: random(k) needs k ≥ 1", s)
		}
		c.Selector, c.K = "random", k
	default:
		return CrashSpec{}, fmt.Errorf("--crash %q: unknown selector %q (known: highest, lowest, leader, would-be-leader, initiator, index:K, random(k))", s, sel)
	}
	if hasWhen {
		switch {
		case when == "start":
		case when == "leader-elected":
			c.When = trial.LeaderElected
		case strings.HasPrefix(when, "after-messages:"):
			k, err := strconv.ParseInt(strings.TrimPrefix(when, "after-messages:"), 10, 64)
			if err != nil || k < 1 {
				return CrashSpec{}, fmt.Errorf("--crash %q: after-messages:K needs K ≥ 1", s)
			}
			c.When, c.Msgs = trial.AfterMessages, k
		default:
			if _, err := nodes.ParseDuration(when, time.Millisecond, 0); err != nil {
				return CrashSpec{}, fmt.Errorf("--crash %q: WHEN must be start, a time (5ms, 3T), after-messages:K or leader-elected", s)
			}
			c.When, c.At = trial.AtTime, when
		}
	}
	if c.Selector == "leader" && c.When == trial.AtStart {
		return CrashSpec{}, fmt.Errorf("--crash %q: there is no leader before the run; use would-be-leader or highest, or a later WHEN", s)
	}
	return c, nil
}

// resolveCrashes turns the specs into the simulator's crashes for one trial.
func resolveCrashes(specs []CrashSpec, ranks []nodes.Rank, initiators []int, seed uint64, t time.Duration) ([]trial.Crash, error) {
	n := len(ranks)
	crashed := make([]bool, n)
	var out []trial.Crash
	src := rand.New(rand.NewPCG(seed, streamCrashes))
	for _, c := range specs {
		base := trial.Crash{When: c.When, K: c.Msgs}
		if c.When == trial.AtTime {
			at, err := nodes.ParseDuration(c.At, t, 0)
			if err != nil || at < 0 {
				return nil, fmt.Errorf("--crash %q: bad time %q", c, c.At)
			}
			base.At = at
		}
		var positions []int
		switch c.Selector {
		case "highest":
			positions = []int{extreme(ranks, nil, true)}
		case "would-be-leader":
			positions = []int{extreme(ranks, crashed, true)}
		case "lowest":
			positions = []int{extreme(ranks, nil, false)}
		case "leader":
			positions = []int{trial.CurrentLeader}
		case "initiator":
			if len(initiators) == 0 {
				return nil, fmt.Errorf("--crash %q: no process initiates, so no initiator to crash", c)
			}
			positions = []int{initiators[0]}
		case "index":
			if c.K >= n {
				return nil, fmt.Errorf("--crash %q: position %d matches no process (0..%d)", c, c.K, n-1)
			}
			positions = []int{c.K}
		case "random":
			if c.K >= n {
				return nil, fmt.Errorf("--crash %q: cannot crash %d of %d processes and still elect", c, c.K, n)
			}
			positions = src.Perm(n)[:c.K]
		}
		for _, p := range positions {
			if p >= 0 {
				crashed[p] = true
			}
			cr := base
			cr.Pos = p
			out = append(out, cr)
		}
	}
	alive := 0
	for _, c := range crashed {
		if !c {
			alive++
		}
	}
	if alive == 0 {
		return nil, fmt.Errorf("--crash: every process would crash")
	}
	return out, nil
}

// extreme is the position of the highest (or lowest) rank, skipping
// positions marked in skip.
func extreme(ranks []nodes.Rank, skip []bool, highest bool) int {
	best := -1
	for i, r := range ranks {
		if skip != nil && skip[i] {
			continue
		}
		if best < 0 || (highest && ranks[best].Less(r)) || (!highest && r.Less(ranks[best])) {
			best = i
		}
	}
	return best
}
