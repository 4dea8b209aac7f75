package trial

import (
	"testing"
	"time"
)

// A heartbeat detector's times written in T or D are read in the unit of
// the processes that run it; written in seconds they stay; the oracle
// detectors keep theirs; in T itself nothing changes.
func TestDetectorIn(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		spec, lat string
		unit      time.Duration
		p, tau, d time.Duration
	}{
		{"heartbeat(1T,4T)", "1ms", 6 * ms, 6 * ms, 24 * ms, 0},
		{"heartbeat(1T,4T)", "1ms", 1 * ms, 1 * ms, 4 * ms, 0},
		{"heartbeat(2ms,8ms)", "1ms", 6 * ms, 2 * ms, 8 * ms, 0},
		// D is the latency's bound plus what the unit adds to T: 5 + 5 ms.
		{"heartbeat(1T,2D)", "uniform(1ms,5ms)", 8 * ms, 8 * ms, 20 * ms, 0},
		{"perfect(10T)", "1ms", 6 * ms, 0, 0, 10 * ms},
	} {
		lat, err := ParseLatency(c.lat)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseDetector(c.spec, lat)
		if err != nil {
			t.Fatal(err)
		}
		got := d.In(lat, c.unit)
		if got.P != c.p || got.Tau != c.tau || got.D != c.d && c.d != 0 {
			t.Errorf("%s on %s in %v: P %v, τ %v, D %v; want %v, %v, %v", c.spec, c.lat, c.unit, got.P, got.Tau, got.D, c.p, c.tau, c.d)
		}
		if got.String() != d.In(lat, c.unit).String() {
			t.Errorf("%s: In is not a function of its input", c.spec)
		}
	}
	// Built without text (a test's literal), a detector keeps its times.
	lit := Detector{Kind: "heartbeat", P: 2 * ms, Tau: 8 * ms}
	if got := lit.In(Constant(ms), 6*ms); got.P != 2*ms || got.Tau != 8*ms {
		t.Errorf("a literal detector changed: %+v", got)
	}
}
