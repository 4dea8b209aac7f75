package check

import (
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// The anonymous ring's verdicts (ALGORITHMS.md, "Anonymous rings"):
// symmetric when every process did the same at every instant, otherwise
// several leaders when more than one decided, no leader when none did,
// and correct when exactly one did.
func TestSymmetryVerdicts(t *testing.T) {
	const ms = time.Millisecond
	one := nodes.RankOf(1)
	for _, c := range []struct {
		name    string
		sendAt  []time.Duration // one send per process, at these instants
		decide  []bool          // which processes decide, at 2ms
		want    string          // the first violation's kind; "" none
		correct bool
	}{
		{"symmetric", []time.Duration{ms, ms, ms}, []bool{true, true, true}, "symmetric", false},
		{"several", []time.Duration{ms, 2 * ms, ms}, []bool{true, true, true}, "several-leaders", false},
		{"none", []time.Duration{ms, 2 * ms, ms}, []bool{false, false, false}, "no-leader", false},
		{"symmetric none", []time.Duration{ms, ms, ms}, []bool{false, false, false}, "symmetric", false},
		{"one", []time.Duration{ms, 2 * ms, ms}, []bool{true, false, false}, "undecided", false},
	} {
		c0 := New(nodes.RanksFrom(1, 1, 1))
		c0.WatchSymmetry(ms)
		d := trial.NewDecisions(3)
		for p, at := range c.sendAt {
			c0.Event(&trial.Event{At: at, Kind: trial.EvSend, P: int32(p), Msg: nodes.Message{Kind: 1}})
		}
		for p, ok := range c.decide {
			if ok {
				c0.Decided(2*ms, p, one)
				d.Decided(p, &one, 2*ms)
			}
		}
		v := c0.Finish(&d, true, 3*ms)
		got := ""
		if len(v.Recorded) > 0 {
			got = v.Recorded[0].Kind
		}
		if got != c.want || v.Correct != c.correct {
			t.Errorf("%s: first violation %q (%v), correct %v; want %q, %v", c.name, got, v.Recorded, v.Correct, c.want, c.correct)
		}
		if c.want == "symmetric" && !strings.Contains(v.Recorded[0].Detail, "until round 3") {
			t.Errorf("%s: %q does not name round 3, where the run ended", c.name, v.Recorded[0].Detail)
		}
	}
}
