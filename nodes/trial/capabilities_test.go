package trial

import (
	"strings"
	"testing"
	"time"
)

// A runtime's declaration refuses exactly what it says it cannot run,
// saying why; the zero declaration (the simulator's) refuses nothing.
func TestCapabilities(t *testing.T) {
	c := Capabilities{Runtime: "live", MaxNodes: 8, Grain: time.Millisecond, GrainWhy: "links delay in whole milliseconds",
		Detectors: []string{"perfect(D)", "heartbeat(P,τ)"}, Lacks: map[string]string{Loss{}.Name(): "TCP"}}
	ms := time.Millisecond
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for none
	}{
		{"8 nodes", c.CheckNodes(8), ""},
		{"9 nodes", c.CheckNodes(9), "a live cluster is at most 8 processes"},
		{"T = 2ms", c.CheckLatency(Constant(2 * ms)), ""},
		{"T = 0.5ms", c.CheckLatency(Constant(ms / 2)), "so T must be at least 1ms"},
		{"T = 1.5ms", c.CheckLatency(Constant(3 * ms / 2)), "use 1ms or 2ms"},
		{"uniform", c.CheckLatency(Uniform{Lo: ms, Hi: 2 * ms}), ""},
		{"heartbeat", c.CheckDetector(Detector{Kind: "heartbeat"}), ""},
		{"default detector", c.CheckDetector(Detector{}), ""},
		{"inaccurate", c.CheckDetector(Detector{Kind: "inaccurate"}), "the inaccurate detector is simulator-only; live runs take perfect(D) or heartbeat(P,τ)"},
		{"delay", c.CheckEffect(&Fault{Link: Delay{Latency: ms}}), ""},
		{"loss", c.CheckEffect(&Fault{Link: Loss{P: 0.5}}), "runtime live cannot apply loss to links: TCP"},
		{"crash", c.CheckEffect(&Fault{Effect: EffCrash}), ""},
	} {
		if got := errString(tc.err); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	var none Capabilities
	if err := none.CheckNodes(1 << 20); err != nil {
		t.Error(err)
	}
	if err := none.CheckLatency(Constant(time.Nanosecond)); err != nil {
		t.Error(err)
	}
	if err := none.CheckDetector(Detector{Kind: "inaccurate"}); err != nil {
		t.Error(err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
