package chaos

import (
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// When resolves a trigger for the mean latency T.
func (t Trigger) When(T time.Duration) trial.When {
	w := trial.When{At: t.At.Of(T), K: t.K, Delay: t.Delay.Of(T)}
	if !t.Spread.IsZero() {
		w.Spread, w.SpreadLo, w.SpreadHi = true, t.Spread.Lo.Of(T), t.Spread.Hi.Of(T)
	}
	switch t.Kind {
	case AtStart:
		w.Trigger = trial.AtStart
	case AtTime:
		w.Trigger = trial.AtTime
	case ElectionStart:
		w.Trigger = trial.ElectionStart
	case LeaderElected:
		w.Trigger = trial.LeaderElected
	case AfterMessages:
		w.Trigger = trial.AfterMessages
	}
	return w
}

// Compile is the timeline's fault for this scenario fault, for the mean
// latency T: its kind's effect (Kind.Effect or Kind.Link) with the
// parameters written, its triggers, and its selectors, which resolve
// against the running trial when it starts.
func (f *Fault) Compile(T time.Duration) trial.Fault {
	k := f.KindInfo()
	tf := trial.Fault{Effect: k.Effect, Link: k.Link, Name: f.Label(), Start: f.Start.When(T), For: f.For.Of(T), Toxicity: f.Toxicity}
	if f.Heal != nil {
		w := f.Heal.When(T)
		tf.End = &w
	}
	switch k.Class {
	case ProcessFault:
		tf.Targets = func(v trial.View) []int { return f.Targets(v) }
	case DetectorFault:
		tf.Targets = func(v trial.View) []int { return f.Targets(v) }
		tf.Observers = func(v trial.View) []int { return f.ObserverSet(v) }
	default:
		tf.Links = func(v trial.View) trial.LinkSet {
			ls := f.LinkSet(v)
			return trial.LinkSet{Has: ls.Has, Text: ls.Text}
		}
	}
	for _, p := range f.Params {
		p.set(&tf, T)
	}
	return tf
}

// LinkModel is the timeline's fault for a per-link latency model (a
// scenario's network.links): in force from the start, on the links from
// any of from to any of to (zero selectors: all).
func LinkModel(from, to Selector, model trial.Latency) trial.Fault {
	return trial.Fault{Link: trial.LinkModel{Model: model}, Name: "link-latency(" + model.String() + ")",
		Links: func(v trial.View) trial.LinkSet {
			ls := oneWay(v, from, to)
			return trial.LinkSet{Has: ls.Has, Text: ls.Text}
		}}
}
