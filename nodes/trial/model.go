package trial

// OutsideModel reports whether a trial ran outside the model its algorithm
// assumes through no doing of its configuration: the algorithm assumes
// bounded delay (nodes.Algorithm.BoundedDelay), an election message took
// longer than the bound D its machines were given (rec.Overruns), the
// latency model has a largest delay (under normal or exponential latency D
// is a quantile, and a message past it is the model's own draw), and no
// fault of the trial stretches delays on purpose (a delay, a link model,
// a pause, a slow process). A loaded live host does this: a process scheduled late delays
// a message past D, a timer fires under it, and a lower bully process
// rightly declares itself while a higher one is alive. The live runtime
// runs such a trial again (MaxReruns); the simulator's delays
// are its model's draws, so it never finds one there.
func OutsideModel(cfg *Config, rec *Record) bool {
	if cfg.Algorithm == nil || !cfg.Algorithm.BoundedDelay || rec.Overruns == 0 || !Bounded(cfg.Latency) {
		return false
	}
	for i := range cfg.Faults {
		if f := &cfg.Faults[i]; f.OnLinks() && f.Link.Delays() || f.Effect == EffPause || f.Effect == EffSlow {
			return false
		}
	}
	return true
}

// Bounded reports whether l never draws a latency above its Bound.
func Bounded(l Latency) bool {
	switch l.(type) {
	case Constant, Uniform:
		return true
	}
	return false
}

// MaxReruns is how many times a live trial runs again when the host,
// not its configuration, took it outside its algorithm's model
// (trial.OutsideModel: an algorithm that assumes bounded delay saw a
// message outlast D, because a loaded host scheduled a process late).
// Such an attempt measures the host, not the algorithm, so it is not
// kept; the row of the attempt kept counts those run again (reruns) and
// its own overruns, and after MaxReruns reruns the last attempt is kept
// whatever it shows. Whether an attempt is run again depends on its
// delays alone, never on its verdict, so keeping attempts biases no
// figure towards correct.
const MaxReruns = 2
