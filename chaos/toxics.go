package chaos

import "time"

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
// resolved for the mean latency T. ok is false for the faults a live run
// applies otherwise: process faults (signals), suspicions (the control
// channel), partitions (disabled proxies), and loss, duplication and
// reordering (the node's link layer, drawing from the trial seed).
func (f *Fault) Toxic(T time.Duration) (Toxic, bool) {
	ms := func(d Duration) int64 { return d.Of(T).Milliseconds() }
	t := Toxic{Stream: "upstream", Toxicity: float32(f.Toxicity)}
	if t.Toxicity == 0 {
		t.Toxicity = 1
	}
	switch f.Kind {
	case "latency":
		t.Type, t.Attributes = "latency", map[string]int64{"latency": ms(f.Latency), "jitter": ms(f.Jitter)}
	case "bandwidth":
		t.Type, t.Attributes = "bandwidth", map[string]int64{"rate": f.Rate}
	case "slow-close":
		t.Type, t.Attributes = "slow_close", map[string]int64{"delay": ms(f.Delay)}
	case "blackhole":
		t.Type, t.Attributes = "timeout", map[string]int64{"timeout": ms(f.Timeout)}
	case "reset":
		t.Type, t.Attributes = "reset_peer", map[string]int64{"timeout": ms(f.Timeout)}
	case "slicer":
		t.Type, t.Attributes = "slicer", map[string]int64{"average_size": f.AverageSize, "size_variation": f.SizeVariation,
			"delay": f.Delay.Of(T).Microseconds()}
	case "limit-data":
		t.Type, t.Attributes = "limit_data", map[string]int64{"bytes": f.Bytes}
	default:
		return Toxic{}, false
	}
	return t, true
}
