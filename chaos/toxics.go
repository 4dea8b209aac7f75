package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Toxic is a Toxiproxy toxic as the live runtime adds it to the proxy of
// every affected link: in the live design each directed link a→b is one
// proxy that a dials, so a fault on a→b is an upstream toxic on that proxy.
// It names Toxiproxy's types and attributes, in Toxiproxy's units, without
// depending on its client: the injector (chaos/toxi) turns it into a call.
type Toxic struct {
	Type       string           // Toxiproxy's toxic type: latency, bandwidth, slow_close, timeout, reset_peer, slicer, limit_data
	Stream     string           // always "upstream"
	Toxicity   float32          // the share of connections it applies to (1: all)
	Attributes map[string]int64 // in Toxiproxy's units: ms, KB/s, µs, bytes
}

// Toxic returns the Toxiproxy toxic a link fault maps onto, with durations
// resolved for the mean latency T. It reads the fault's compiled effect
// (Compile), not its kind, so a new kind built from an existing effect
// runs live with no change here. ok is false for the faults a live run
// applies otherwise: process faults (signals), suspicions (the control
// channel), partitions (disabled proxies), and the effects Toxiproxy has no
// toxic for (loss, duplication, reordering, per-link latency models).
func (f *Fault) Toxic(T time.Duration) (Toxic, bool) {
	tf := f.Compile(T)
	t := Toxic{Stream: "upstream", Toxicity: float32(tf.Toxicity)}
	if t.Toxicity == 0 {
		t.Toxicity = 1
	}
	switch tf.Effect {
	case trial.EffDelay:
		t.Type, t.Attributes = "latency", map[string]int64{"latency": tf.Latency.Milliseconds(), "jitter": tf.Jitter.Milliseconds()}
	case trial.EffBandwidth:
		t.Type, t.Attributes = "bandwidth", map[string]int64{"rate": tf.Rate / 1000} // KB/s
	case trial.EffSlowClose:
		t.Type, t.Attributes = "slow_close", map[string]int64{"delay": tf.CloseDelay.Milliseconds()}
	case trial.EffBlackhole:
		t.Type, t.Attributes = "timeout", map[string]int64{"timeout": tf.Timeout.Milliseconds()}
	case trial.EffReset:
		t.Type, t.Attributes = "reset_peer", map[string]int64{"timeout": tf.Timeout.Milliseconds()}
	case trial.EffSlicer:
		t.Type, t.Attributes = "slicer", map[string]int64{"average_size": tf.SliceSize, "size_variation": tf.SliceVariation,
			"delay": tf.SliceDelay.Microseconds()}
	case trial.EffDataLimit:
		t.Type, t.Attributes = "limit_data", map[string]int64{"bytes": tf.Bytes}
	default:
		return Toxic{}, false
	}
	return t, true
}
