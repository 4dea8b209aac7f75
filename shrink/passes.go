package shrink

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/trial"
)

// Each pass proposes its changes to the best scenario one at a time,
// through shrinker.try, and returns true at the first one kept: the loop
// in Shrink runs it again until it keeps none.

// dropFaults drops one fault at a time, last first, then either half of
// them.
func dropFaults(s *shrinker) bool {
	n := len(s.best.Faults)
	for i := n - 1; i >= 0; i-- {
		label := s.best.Faults[i].Label()
		if s.try(fmt.Sprintf("dropped faults[%d] (%s)", i, label), func(c *chaos.Scenario) bool {
			c.Faults = append(c.Faults[:i], c.Faults[i+1:]...)
			return true
		}) {
			return true
		}
	}
	if n < 4 {
		return false
	}
	return s.try(fmt.Sprintf("dropped faults[%d:]", n/2), func(c *chaos.Scenario) bool {
		c.Faults = c.Faults[:n/2]
		return true
	}) || s.try(fmt.Sprintf("dropped faults[:%d]", n/2), func(c *chaos.Scenario) bool {
		c.Faults = c.Faults[n/2:]
		return true
	})
}

// dropHeals drops a heal that the violation does not need.
func dropHeals(s *shrinker) bool {
	for i := range s.best.Faults {
		if s.best.Faults[i].Heal == nil {
			continue
		}
		if s.try(fmt.Sprintf("dropped the heal of faults[%d]", i), func(c *chaos.Scenario) bool {
			c.Faults[i].Heal = nil
			return true
		}) {
			return true
		}
	}
	return false
}

// unitOf is the scenario's T, the mean of its latency model.
func unitOf(sc *chaos.Scenario) time.Duration {
	lat, err := trial.ParseLatency(cmpOr(sc.Network.Latency, chaos.DefaultLatency))
	if err != nil {
		return time.Millisecond
	}
	return lat.Mean()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// inT writes d, a multiple of T, as a duration in T ("2.5T").
func inT(d time.Duration, T time.Duration) chaos.Duration {
	v := math.Round(float64(d)/float64(T)*1000) / 1000
	return chaos.Duration{Text: strconv.FormatFloat(v, 'f', -1, 64) + "T"}
}

// halve proposes a duration half as long, in T, for as long as it is at
// least a tenth of T.
func halve(d chaos.Duration, T time.Duration) (chaos.Duration, bool) {
	v := d.Of(T)
	if v < T/5 {
		return d, false
	}
	return inT(v/2, T), true
}

// shortenFaults halves how long each fault lasts, toward 0: its for, or
// the time between its start and its heal, by healing it earlier or by
// starting it later.
func shortenFaults(s *shrinker) bool {
	T := unitOf(s.best)
	for i := range s.best.Faults {
		f := &s.best.Faults[i]
		if !f.For.IsZero() {
			h, ok := halve(f.For, T)
			if ok && s.try(fmt.Sprintf("faults[%d] lasts %s instead of %s", i, h.Text, f.For.Text), func(c *chaos.Scenario) bool {
				c.Faults[i].For = h
				return true
			}) {
				return true
			}
		}
		if timedWindow(f) && shortenWindow(s, i, T) {
			return true
		}
	}
	return false
}

// timedWindow reports whether a fault starts and heals at times (not on
// triggers), so that its window can be halved from either end.
func timedWindow(f *chaos.Fault) bool {
	plain := func(t chaos.Trigger) bool { return t.Delay.IsZero() && t.Spread.IsZero() }
	return f.Heal != nil && f.Heal.Kind == chaos.AtTime && plain(*f.Heal) &&
		(f.Start.Kind == chaos.AtTime || f.Start.Kind == chaos.AtStart) && plain(f.Start)
}

// shortenWindow heals fault i half way through its window, or else starts
// it half way.
func shortenWindow(s *shrinker, i int, T time.Duration) bool {
	f := &s.best.Faults[i]
	from, until := f.Start.At.Of(T), f.Heal.At.Of(T)
	if until-from < T/5 {
		return false
	}
	mid := inT(from+(until-from)/2, T)
	return s.try(fmt.Sprintf("faults[%d] heals at %s instead of %s", i, mid.Text, f.Heal.At.Text), func(c *chaos.Scenario) bool {
		c.Faults[i].Heal.At = mid
		return true
	}) || s.try(fmt.Sprintf("faults[%d] starts at %s instead of %s", i, mid.Text, f.Start), func(c *chaos.Scenario) bool {
		c.Faults[i].Start = chaos.Trigger{Kind: chaos.AtTime, At: mid}
		return true
	})
}

// simplerTriggers drops a trigger's random offset, halves its delay
// toward 0 (leader-elected+4T, then +2T, ..., then leader-elected), and
// brings after-messages(K) toward K = 1, for starts and heals alike.
func simplerTriggers(s *shrinker) bool {
	T := unitOf(s.best)
	for i := range s.best.Faults {
		for _, heal := range []bool{false, true} {
			at := func(c *chaos.Scenario) *chaos.Trigger {
				if heal {
					return c.Faults[i].Heal
				}
				return &c.Faults[i].Start
			}
			tr := at(s.best)
			if tr == nil {
				continue
			}
			for _, alt := range simplerTrigger(*tr, T) {
				what := fmt.Sprintf("faults[%d] starts at %s instead of %s", i, alt, tr)
				if heal {
					what = fmt.Sprintf("faults[%d] heals at %s instead of %s", i, alt, tr)
				}
				if s.try(what, func(c *chaos.Scenario) bool { *at(c) = alt; return true }) {
					return true
				}
			}
		}
	}
	return false
}

// simplerTrigger lists the simpler triggers to try in place of t, the
// biggest change first.
func simplerTrigger(t chaos.Trigger, T time.Duration) []chaos.Trigger {
	var out []chaos.Trigger
	if !t.Spread.IsZero() {
		u := t
		u.Spread = chaos.Spread{}
		out = append(out, u)
	}
	if !t.Delay.IsZero() {
		u := t
		u.Delay = chaos.Duration{}
		out = append(out, u)
		if h, ok := halve(t.Delay, T); ok {
			u.Delay = h
			out = append(out, u)
		}
	}
	if t.Kind == chaos.AfterMessages && t.K > 1 {
		u := t
		u.K = 1
		out = append(out, u)
		u.K = t.K / 2
		out = append(out, u)
	}
	if t.Kind == chaos.AtTime {
		if r := roundT(t.At, T); r != t.At {
			u := t
			u.At = r
			out = append(out, u)
		}
	}
	return out
}

// roundT rounds a duration to a whole number of T (at least 1T).
func roundT(d chaos.Duration, T time.Duration) chaos.Duration {
	v := max(1, math.Round(float64(d.Of(T))/float64(T)))
	r := chaos.Duration{Text: strconv.FormatFloat(v, 'f', -1, 64) + "T"}
	if r.Of(T) == d.Of(T) {
		return d
	}
	return r
}

// fewerNodes tries every smaller cluster, the smallest first; the first
// that still fails is kept (a selector that no longer resolves refuses
// its size).
func fewerNodes(s *shrinker) bool {
	n, err := strconv.Atoi(s.best.Nodes)
	if err != nil {
		return false
	}
	for m := 2; m < n; m++ {
		if s.try(fmt.Sprintf("N=%d instead of %d", m, n), func(c *chaos.Scenario) bool {
			c.Nodes = strconv.Itoa(m)
			return true
		}) {
			return true
		}
	}
	return false
}

// fewerInitiators tries the lowest process alone, then each initiator of
// a list alone, then one fewer random initiator.
func fewerInitiators(s *shrinker) bool {
	cur := cmpOr(s.best.Initiators, chaos.DefaultInitiators)
	var alts []string
	if cur != "lowest" {
		alts = append(alts, "lowest")
	}
	if strings.Contains(cur, ",") {
		alts = append(alts, strings.Split(strings.Trim(cur, "[] "), ",")...)
	}
	if arg, ok := strings.CutPrefix(cur, "random("); ok {
		if k, err := strconv.Atoi(strings.TrimSuffix(arg, ")")); err == nil && k > 1 {
			alts = append(alts, fmt.Sprintf("random(%d)", k-1))
		}
	}
	for _, a := range alts {
		a = strings.TrimSpace(a)
		if s.try(fmt.Sprintf("initiators %s instead of %s", a, cur), func(c *chaos.Scenario) bool {
			c.Initiators = a
			return true
		}) {
			return true
		}
	}
	return false
}

// constantLatency replaces a random latency model by the constant of its
// mean, and drops per-link models one at a time.
func constantLatency(s *shrinker) bool {
	cur := cmpOr(s.best.Network.Latency, chaos.DefaultLatency)
	if lat, err := trial.ParseLatency(cur); err == nil {
		if c := lat.Mean().String(); c != cur && s.try(fmt.Sprintf("latency %s instead of %s", c, cur), func(sc *chaos.Scenario) bool {
			sc.Network.Latency = c
			return true
		}) {
			return true
		}
	}
	for i := range s.best.Network.Links {
		if s.try(fmt.Sprintf("dropped network.links[%d]", i), func(c *chaos.Scenario) bool {
			c.Network.Links = append(c.Network.Links[:i], c.Network.Links[i+1:]...)
			return true
		}) {
			return true
		}
	}
	return false
}

// simplerParams moves a fault's parameters toward simple values: a
// probability (and a toxicity) to 1 or 0, a duration to a whole number
// of T.
func simplerParams(s *shrinker) bool {
	T := unitOf(s.best)
	for i := range s.best.Faults {
		f := &s.best.Faults[i]
		if f.Toxicity > 0 && f.Toxicity < 1 && s.try(fmt.Sprintf("faults[%d] toxicity 1 instead of %g", i, f.Toxicity), func(c *chaos.Scenario) bool {
			c.Faults[i].Toxicity = 1
			return true
		}) {
			return true
		}
		types := map[string]string{}
		for _, d := range f.KindInfo().ParamDocs() {
			types[d.Name] = d.Type
		}
		for j, p := range f.Params {
			for _, alt := range simplerParam(types[p.Name], p.Text, T) {
				if s.try(fmt.Sprintf("faults[%d] %s=%s instead of %s", i, p.Name, alt, p.Text), func(c *chaos.Scenario) bool {
					c.Faults[i].Params[j].Text = alt
					return true
				}) {
					return true
				}
			}
		}
	}
	return false
}

// simplerParam lists the simpler values of a parameter of type typ.
func simplerParam(typ, text string, T time.Duration) []string {
	switch typ {
	case "probability":
		var out []string
		for _, v := range []string{"1", "0"} {
			if text != v {
				out = append(out, v)
			}
		}
		return out
	case "duration":
		d, err := chaos.ParseDuration(text)
		if err != nil || d.IsZero() {
			return nil
		}
		if r := roundT(d, T); r != d {
			return []string{r.Text}
		}
	}
	return nil
}

// shorterDeadline ends the trial one T after the whole T that follows its
// violation.
func shorterDeadline(s *shrinker) bool {
	at, ok := violationTime(s.out.Row.Violation)
	if !ok || s.v.Property != "safety" {
		return false
	}
	T := unitOf(s.best)
	d := chaos.Duration{Text: strconv.FormatInt(int64(math.Ceil(float64(at)/float64(T)))+1, 10) + "T"}
	if cur := s.best.Deadline; !cur.IsZero() && cur.Of(T) <= d.Of(T) {
		return false
	}
	return s.try(fmt.Sprintf("deadline %s, just past the violation at %s", d.Text, inT(at, T).Text), func(c *chaos.Scenario) bool {
		c.Deadline = d
		return true
	})
}

// violationTime reads the instant of a row's violation ("wrong-leader
// at 1.5ms: ...").
func violationTime(v string) (time.Duration, bool) {
	_, rest, ok := strings.Cut(v, " at ")
	if !ok {
		return 0, false
	}
	at, _, _ := strings.Cut(rest, ":")
	d, err := time.ParseDuration(strings.TrimSpace(at))
	return d, err == nil
}

// smallerSeed tries the seeds 1..seedSearch below the current one: the
// smallest whose trial still fails draws the simplest random choices the
// file allows.
func smallerSeed(s *shrinker) bool {
	for k := uint64(1); k <= seedSearch && k < s.best.Seed; k++ {
		if s.try(fmt.Sprintf("seed %d instead of %d", k, s.best.Seed), func(c *chaos.Scenario) bool {
			c.Seed = k
			return true
		}) {
			return true
		}
	}
	return false
}
