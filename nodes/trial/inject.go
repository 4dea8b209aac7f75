package trial

import "time"

// Injector is how the fault timeline (timeline.Timeline) acts on a running
// trial. Each runtime implements it over its own world: the simulator with
// events in its queue, the live harness with signals, its control channel
// and Toxiproxy. Every method acts now, at the runtime's current time, and
// is called only from the trial's own goroutine.
//
// Link effects beyond cutting are optional, each its own small interface
// (Delayer, Throttler, ...: shaping.go) detected by type assertion, as
// Toxiproxy's toxics are: a runtime that cannot shape links a way says so
// by not implementing it, and the timeline refuses such a fault before the
// run.
type Injector interface {
	View
	// At runs f at time at (not before now) as a control event of the
	// runtime: after the handler running now has returned, before the
	// timers due at the same instant.
	At(at time.Duration, f func())
	// Crash stops p (crash-stop). atStart: before anyone boots, so exactly
	// the initiators suspect it at time 0. undetected: no detector's
	// schedule ever suspects it.
	Crash(p int, atStart, undetected bool)
	// Restart runs p again as a fresh machine with the same rank, if it is
	// down.
	Restart(p int)
	// Pause holds everything p would handle until Resume(p).
	Pause(p int)
	Resume(p int)
	// Suspect makes observer's failure detector suspect q, once.
	Suspect(observer, q int)
	// Cut loses every message on the links of l, also those in flight,
	// until Heal(l.ID).
	Cut(l LinkEffect)
	// Heal ends link effect id.
	Heal(id int)
	// Note records a fault starting or healing in the trial's schedule (the
	// faults column) and, when traced, emits it as an EvFault event.
	Note(what string, traced bool)
}

// LinkEffect names the links a link fault acts on.
type LinkEffect struct {
	ID    int // the fault's index in the timeline: Heal names it, and it seeds the toxicity coin
	Links LinkSet
	// Toxicity is the probability that a given link of Links is affected,
	// drawn once per link from the trial's seed, the ID and the link; 0
	// means 1 (every link).
	Toxicity float64
}

// Affects reports whether the effect applies to the link from → to of a
// trial seeded with seed: the link is in Links and chosen by Toxicity. The
// coin is a function of the seed, the ID and the link alone, so both
// runtimes affect the same links whatever the order of sends.
func (l LinkEffect) Affects(seed uint64, from, to int) bool {
	if !l.Links.Has(from, to) {
		return false
	}
	if l.Toxicity <= 0 || l.Toxicity >= 1 {
		return true
	}
	h := Mix(seed ^ Mix(uint64(l.ID)<<40^uint64(from)<<20^uint64(to)))
	return float64(h>>11)/(1<<53) < l.Toxicity
}
