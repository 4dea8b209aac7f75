package chaos

func init() {
	Register(Kind{
		Name: "latency", Class: LinkFault, Heals: "remove the toxic",
		Summary: "add latency ± jitter to every message on the links",
		Sim:     "each message takes its latency model's draw plus latency ± uniform jitter (never below zero); links stay FIFO",
		Live:    "a second Toxiproxy latency toxic on each link, added to the link's own (latency, jitter in ms); its jitter is drawn by Toxiproxy, not from the seed",
		Params: []field[Fault]{
			durationParam("latency", "", "added one-way latency", func(f *Fault) *Duration { return &f.Latency }),
			durationParam("jitter", "0s", "± this much, uniformly", func(f *Fault) *Duration { return &f.Jitter }),
		},
	})
	Register(Kind{
		Name: "bandwidth", Class: LinkFault, Heals: "remove the toxic",
		Summary: "limit each link to a rate in KB/s",
		Sim:     "a message occupies the link for its encoded size ÷ rate; later messages wait for it (serialization delay)",
		Live:    "Toxiproxy bandwidth toxic (rate in KB/s)",
		Params: []field[Fault]{
			countParam("rate", "", "KB/s (1 KB = 1000 bytes)", 1, 1<<40, func(f *Fault) *int64 { return &f.Rate }),
		},
	})
	Register(Kind{
		Name: "slow-close", Class: LinkFault, Heals: "remove the toxic",
		Summary: "delay the closing of connections",
		Sim:     "no effect: simulated links never close. It is recorded in the schedule so live and simulated runs of one file list the same faults",
		Live:    "Toxiproxy slow_close toxic (delay in ms)",
		Params: []field[Fault]{
			durationParam("delay", "0s", "how long a close is delayed", func(f *Fault) *Duration { return &f.Delay }),
		},
	})
	Register(Kind{
		Name: "blackhole", Class: LinkFault, Heals: "remove the toxic",
		Summary: "stop all data on the links (Toxiproxy's timeout toxic)",
		Sim:     "the same as a cut: every message on the links is lost while it holds, also those in flight. The timeout (when Toxiproxy closes the connection) changes nothing at the message level",
		Live:    "Toxiproxy timeout toxic (timeout in ms; 0 keeps the connection open, dropping data, until healed)",
		Params: []field[Fault]{
			durationParam("timeout", "0s", "after this, the connection is closed (live runs)", func(f *Fault) *Duration { return &f.Timeout }),
		},
	})
	Register(Kind{
		Name: "reset", Class: LinkFault, Heals: "remove the toxic",
		Summary: "reset connections (TCP RST), at once or after a timeout",
		Sim:     "the same as a cut starting timeout after the fault: every message on the links is lost, also those in flight (a reset connection loses its buffers; the live link layer reconnects, and the reset repeats while the toxic holds)",
		Live:    "Toxiproxy reset_peer toxic (timeout in ms)",
		Params: []field[Fault]{
			durationParam("timeout", "0s", "the reset happens this long after the fault starts", func(f *Fault) *Duration { return &f.Timeout }),
		},
	})
	Register(Kind{
		Name: "slicer", Class: LinkFault, Heals: "remove the toxic",
		Summary: "cut data into small slices sent with a delay between them",
		Sim:     "a message of S bytes is cut into slices of average-size ± size-variation bytes (drawn from the fault stream); it arrives (slices − 1) × delay later",
		Live:    "Toxiproxy slicer toxic (average_size, size_variation in bytes, delay in µs)",
		Params: []field[Fault]{
			countParam("average-size", "", "mean slice size, bytes", 1, 1<<30, func(f *Fault) *int64 { return &f.AverageSize }),
			countParam("size-variation", "0", "± variation of a slice's size, bytes (below average-size)", 0, 1<<30, func(f *Fault) *int64 { return &f.SizeVariation }),
			durationParam("delay", "0s", "between two slices", func(f *Fault) *Duration { return &f.Delay }),
		},
	})
	Register(Kind{
		Name: "limit-data", Class: LinkFault, Heals: "remove the toxic",
		Summary: "close each link once it has carried a number of bytes",
		Sim:     "each link counts the encoded bytes of its messages from the fault's start; the message that goes past the limit and every later one is lost until healed (the live link layer would reconnect and the toxic close it again)",
		Live:    "Toxiproxy limit_data toxic (bytes)",
		Params: []field[Fault]{
			countParam("bytes", "", "bytes a link carries before it closes", 0, 1<<50, func(f *Fault) *int64 { return &f.Bytes }),
		},
	})
	Register(Kind{
		Name: "loss", Class: LinkFault, Heals: "stop",
		Summary: "lose each message with a probability",
		Sim:     "each message on the links is lost with the given probability, drawn from the fault stream (counted as sent)",
		Live:    "not available: TCP never loses a message and the node's link layer does not drop one; a live scenario with it is rejected at validation",
		Params:  []field[Fault]{probabilityParam("", "probability that a message is lost")},
	})
	Register(Kind{
		Name: "duplicate", Class: LinkFault, Heals: "stop",
		Summary: "deliver each message twice with a probability",
		Sim:     "the copy arrives right after the original; only the original is counted as sent",
		Live:    "not available: the node's link layer does not duplicate; a live scenario with it is rejected at validation",
		Params:  []field[Fault]{probabilityParam("", "probability that a message is duplicated")},
	})
	Register(Kind{
		Name: "reorder", Class: LinkFault, Heals: "stop",
		Summary: "hold messages back so that later ones overtake them",
		Sim:     "with the given probability a message is held back by a uniform draw in [0, delay] and ignores FIFO: later messages on its link may overtake it",
		Live:    "not available: the node's link layer does not reorder (TCP links are FIFO); a live scenario with it is rejected at validation",
		Params: []field[Fault]{
			probabilityParam("", "probability that a message is held back"),
			durationParam("delay", "2T", "the longest hold-back", func(f *Fault) *Duration { return &f.Delay }),
		},
	})
}
