package workloads

import (
	"strings"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/trial"
)

// simEffects maps each chaos fault kind onto its message-level effect in the
// simulator (docs/scenarios.md says where the two runtimes differ). A kind
// without an entry cannot run on the simulator; TestEveryKindRunsOnSim
// keeps the table complete.
var simEffects = map[string]func(f *chaos.Fault, sf *trial.Fault, T time.Duration){
	"crash": func(f *chaos.Fault, sf *trial.Fault, _ time.Duration) {
		sf.Effect, sf.Undetected = trial.EffCrash, f.Undetected
	},
	"restart":   func(_ *chaos.Fault, sf *trial.Fault, _ time.Duration) { sf.Effect = trial.EffRestart },
	"pause":     func(_ *chaos.Fault, sf *trial.Fault, _ time.Duration) { sf.Effect = trial.EffPause },
	"suspect":   func(_ *chaos.Fault, sf *trial.Fault, _ time.Duration) { sf.Effect = trial.EffSuspect },
	"partition": func(_ *chaos.Fault, sf *trial.Fault, _ time.Duration) { sf.Effect = trial.EffCut },
	"blackhole": func(_ *chaos.Fault, sf *trial.Fault, _ time.Duration) { sf.Effect = trial.EffCut },
	"reset": func(f *chaos.Fault, sf *trial.Fault, T time.Duration) {
		// The connection is reset timeout after the toxic is added.
		sf.Effect = trial.EffCut
		sf.Start.Delay += f.Timeout.Of(T)
	},
	"slow-close": func(_ *chaos.Fault, sf *trial.Fault, _ time.Duration) { sf.Effect = trial.EffNone },
	"latency": func(f *chaos.Fault, sf *trial.Fault, T time.Duration) {
		sf.Effect, sf.Latency, sf.Jitter = trial.EffDelay, f.Latency.Of(T), f.Jitter.Of(T)
	},
	"bandwidth": func(f *chaos.Fault, sf *trial.Fault, _ time.Duration) {
		sf.Effect, sf.Rate = trial.EffBandwidth, f.Rate*1000 // KB/s, as Toxiproxy counts
	},
	"slicer": func(f *chaos.Fault, sf *trial.Fault, T time.Duration) {
		sf.Effect, sf.SliceSize, sf.SliceVariation, sf.SliceDelay = trial.EffSlicer, f.AverageSize, f.SizeVariation, f.Delay.Of(T)
	},
	"limit-data": func(f *chaos.Fault, sf *trial.Fault, _ time.Duration) {
		sf.Effect, sf.Bytes = trial.EffDataLimit, f.Bytes
	},
	"loss": func(f *chaos.Fault, sf *trial.Fault, _ time.Duration) { sf.Effect, sf.P = trial.EffLoss, f.Probability },
	"duplicate": func(f *chaos.Fault, sf *trial.Fault, _ time.Duration) {
		sf.Effect, sf.P = trial.EffDuplicate, f.Probability
	},
	"reorder": func(f *chaos.Fault, sf *trial.Fault, T time.Duration) {
		sf.Effect, sf.P, sf.Latency = trial.EffReorder, f.Probability, f.Delay.Of(T)
	},
}

// simWhen resolves a trigger for a mean latency T.
func simWhen(t chaos.Trigger, T time.Duration) trial.When {
	w := trial.When{At: t.At.Of(T), K: t.K, Delay: t.Delay.Of(T)}
	switch t.Kind {
	case chaos.AtStart:
		w.Trigger = trial.AtStart
	case chaos.AtTime:
		w.Trigger = trial.AtTime
	case chaos.ElectionStart:
		w.Trigger = trial.ElectionStart
	case chaos.LeaderElected:
		w.Trigger = trial.LeaderElected
	case chaos.AfterMessages:
		w.Trigger = trial.AfterMessages
	}
	return w
}

// simFaults builds the simulator's timeline of a spec: the per-link latency
// overrides, active from the start, then the scenario's faults. Targets
// resolve against the simulator's view when each fault starts.
func (s *Spec) simFaults(T time.Duration) []trial.Fault {
	var out []trial.Fault
	for _, l := range s.LinkLatency {
		l := l
		out = append(out, trial.Fault{Effect: trial.EffLinkModel, Name: "link-latency(" + l.Latency.String() + ")", Model: l.Latency,
			Links: func(v trial.View) trial.LinkSet {
				var all chaos.Fault
				all.From, all.To = l.From, l.To
				ls := all.LinkSet(v)
				return trial.LinkSet{Has: ls.Has, Text: ls.Text}
			}})
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		sf := trial.Fault{Name: f.Label(), Start: simWhen(f.Start, T), For: f.For.Of(T), Toxicity: f.Toxicity}
		if f.Heal != nil {
			w := simWhen(*f.Heal, T)
			sf.End = &w
		}
		switch f.KindInfo().Class {
		case chaos.ProcessFault:
			sf.Targets = func(v trial.View) []int { return f.Targets(v) }
		case chaos.DetectorFault:
			sf.Targets = func(v trial.View) []int { return f.Targets(v) }
			sf.Observers = func(v trial.View) []int { return f.ObserverSet(v) }
		default:
			sf.Links = func(v trial.View) trial.LinkSet {
				ls := f.LinkSet(v)
				return trial.LinkSet{Has: ls.Has, Text: ls.Text}
			}
		}
		simEffects[f.Kind](f, &sf, T)
		out = append(out, sf)
	}
	return out
}

// faultSchedule is the faults column: every start and heal with its time.
func faultSchedule(evs []trial.FaultEvent) string {
	parts := make([]string, len(evs))
	for i, e := range evs {
		parts[i] = e.String()
	}
	return strings.Join(parts, ";")
}
