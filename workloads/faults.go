package workloads

import (
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/sim"
)

// simEffects maps each chaos fault kind onto its message-level effect in the
// simulator (docs/scenarios.md says where the two runtimes differ). A kind
// without an entry cannot run on the simulator; TestEveryKindRunsOnSim
// keeps the table complete.
var simEffects = map[string]func(f *chaos.Fault, sf *sim.Fault, T time.Duration){
	"crash": func(f *chaos.Fault, sf *sim.Fault, _ time.Duration) {
		sf.Effect, sf.Undetected = sim.EffCrash, f.Undetected
	},
	"restart":   func(_ *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect = sim.EffRestart },
	"pause":     func(_ *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect = sim.EffPause },
	"suspect":   func(_ *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect = sim.EffSuspect },
	"partition": func(_ *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect = sim.EffCut },
	"blackhole": func(_ *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect = sim.EffCut },
	"reset": func(f *chaos.Fault, sf *sim.Fault, T time.Duration) {
		// The connection is reset timeout after the toxic is added.
		sf.Effect = sim.EffCut
		sf.Start.Delay += f.Timeout.Of(T)
	},
	"slow-close": func(_ *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect = sim.EffNone },
	"latency": func(f *chaos.Fault, sf *sim.Fault, T time.Duration) {
		sf.Effect, sf.Latency, sf.Jitter = sim.EffDelay, f.Latency.Of(T), f.Jitter.Of(T)
	},
	"bandwidth": func(f *chaos.Fault, sf *sim.Fault, _ time.Duration) {
		sf.Effect, sf.Rate = sim.EffBandwidth, f.Rate*1000 // KB/s, as Toxiproxy counts
	},
	"slicer": func(f *chaos.Fault, sf *sim.Fault, T time.Duration) {
		sf.Effect, sf.SliceSize, sf.SliceVariation, sf.SliceDelay = sim.EffSlicer, f.AverageSize, f.SizeVariation, f.Delay.Of(T)
	},
	"limit-data": func(f *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect, sf.Bytes = sim.EffDataLimit, f.Bytes },
	"loss":       func(f *chaos.Fault, sf *sim.Fault, _ time.Duration) { sf.Effect, sf.P = sim.EffLoss, f.Probability },
	"duplicate": func(f *chaos.Fault, sf *sim.Fault, _ time.Duration) {
		sf.Effect, sf.P = sim.EffDuplicate, f.Probability
	},
	"reorder": func(f *chaos.Fault, sf *sim.Fault, T time.Duration) {
		sf.Effect, sf.P, sf.Latency = sim.EffReorder, f.Probability, f.Delay.Of(T)
	},
}

// simWhen resolves a trigger for a mean latency T.
func simWhen(t chaos.Trigger, T time.Duration) sim.When {
	w := sim.When{At: t.At.Of(T), K: t.K, Delay: t.Delay.Of(T)}
	switch t.Kind {
	case chaos.AtStart:
		w.Trigger = sim.AtStart
	case chaos.AtTime:
		w.Trigger = sim.AtTime
	case chaos.ElectionStart:
		w.Trigger = sim.ElectionStart
	case chaos.LeaderElected:
		w.Trigger = sim.LeaderElected
	case chaos.AfterMessages:
		w.Trigger = sim.AfterMessages
	}
	return w
}

// simFaults builds the simulator's timeline of a spec: the per-link latency
// overrides, active from the start, then the scenario's faults. Targets
// resolve against the simulator's view when each fault starts.
func (s *Spec) simFaults(T time.Duration) []sim.Fault {
	var out []sim.Fault
	for _, l := range s.LinkLatency {
		l := l
		out = append(out, sim.Fault{Effect: sim.EffLinkModel, Name: "link-latency(" + l.Latency.String() + ")", Model: l.Latency,
			Links: func(v sim.View) sim.LinkSet {
				var all chaos.Fault
				all.From, all.To = l.From, l.To
				ls := all.LinkSet(v)
				return sim.LinkSet{Has: ls.Has, Text: ls.Text}
			}})
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		sf := sim.Fault{Name: f.Label(), Start: simWhen(f.Start, T), For: f.For.Of(T), Toxicity: f.Toxicity}
		if f.Heal != nil {
			w := simWhen(*f.Heal, T)
			sf.End = &w
		}
		switch f.KindInfo().Class {
		case chaos.ProcessFault:
			sf.Targets = func(v sim.View) []int { return f.Targets(v) }
		case chaos.DetectorFault:
			sf.Targets = func(v sim.View) []int { return f.Targets(v) }
			sf.Observers = func(v sim.View) []int { return f.ObserverSet(v) }
		default:
			sf.Links = func(v sim.View) sim.LinkSet {
				ls := f.LinkSet(v)
				return sim.LinkSet{Has: ls.Has, Text: ls.Text}
			}
		}
		simEffects[f.Kind](f, &sf, T)
		out = append(out, sf)
	}
	return out
}

// faultSchedule is the faults column: every start and heal with its time.
func faultSchedule(evs []sim.FaultEvent) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = e.String()
	}
	return strings.Join(parts, ";")
}
