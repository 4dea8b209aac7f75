package trial

import (
	"errors"
	"fmt"
	"time"
)

// Shaping is a link effect: one parameter struct per effect (Delay, Slice,
// Loss, ...), with one set of names from the scenario file to the runtime.
// A scenario kind (chaos) fills it in, the timeline hands it whole to the
// runtime's interface for it (Slicer.Slice(l, Slice)), and each runtime
// implements that interface or refuses the effect before the run. Adding
// an effect is its struct, its interface and its Apply here, and the
// runtimes' methods.
type Shaping interface {
	// Name names the effect: an unnamed fault's name in the schedule.
	Name() string
	// Validate checks the parameters.
	Validate() error
	// Delays reports whether the effect can change a message's latency, so
	// that delivery order may differ from send order.
	Delays() bool
	// Apply puts the effect in force on l through inj's interface for it
	// when apply is set; it reports whether inj has that interface.
	Apply(inj Injector, l LinkEffect, apply bool) bool
}

// shape calls the runtime's interface I for an effect, if it has it.
func shape[I any](inj Injector, apply bool, call func(x I)) bool {
	x, ok := inj.(I)
	if ok && apply {
		call(x)
	}
	return ok
}

// Cut loses every message on the links, also those in flight: partitions.
// Every runtime cuts (Injector.Cut).
type Cut struct{}

func (Cut) Name() string    { return "cut" }
func (Cut) Validate() error { return nil }
func (Cut) Delays() bool    { return false }
func (Cut) Apply(inj Injector, l LinkEffect, apply bool) bool {
	if apply {
		inj.Cut(l)
	}
	return true
}

// HostCut drops, in the kernel, every packet between the hosts of the
// links' ends (the live runtime on --netns hosts: nftables rules in the
// receiving hosts' namespaces), from the hosts of each link's sender to
// those of its receiver; links within one host are untouched. Unlike Cut,
// which a stream proxy applies to each directed link, a packet-level cut
// one way stalls TCP both ways (its acknowledgements are lost too).
type HostCut struct{}

// HostCutter applies HostCut.
type HostCutter interface{ HostCut(l LinkEffect) }

func (HostCut) Name() string    { return "host-cut" }
func (HostCut) Validate() error { return nil }
func (HostCut) Delays() bool    { return false }
func (HostCut) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x HostCutter) { x.HostCut(l) })
}

// Mark is recorded in the schedule only: it changes nothing on the links.
type Mark struct{}

func (Mark) Name() string                          { return "none" }
func (Mark) Validate() error                       { return nil }
func (Mark) Delays() bool                          { return false }
func (Mark) Apply(Injector, LinkEffect, bool) bool { return true }

// Delay adds latency ± uniform jitter to every message; links stay FIFO.
type Delay struct {
	Latency time.Duration // added one-way latency
	Jitter  time.Duration // ± uniform around Latency
}

// Delayer applies Delay.
type Delayer interface{ Delay(l LinkEffect, p Delay) }

func (Delay) Name() string { return "delay" }
func (p Delay) Validate() error {
	if p.Latency < 0 || p.Jitter < 0 {
		return errors.New("negative latency or jitter")
	}
	return nil
}
func (Delay) Delays() bool { return true }
func (p Delay) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Delayer) { x.Delay(l, p) })
}

// Bandwidth serializes the links at Rate: a message waits for its link to
// carry the earlier ones.
type Bandwidth struct {
	Rate int64 // bytes per second
}

// Throttler applies Bandwidth.
type Throttler interface {
	Throttle(l LinkEffect, p Bandwidth)
}

func (Bandwidth) Name() string { return "bandwidth" }
func (p Bandwidth) Validate() error {
	if p.Rate <= 0 {
		return fmt.Errorf("bandwidth %d bytes/s: must be positive", p.Rate)
	}
	return nil
}
func (Bandwidth) Delays() bool { return true }
func (p Bandwidth) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Throttler) { x.Throttle(l, p) })
}

// Slice cuts each message into slices of Size ± Variation bytes, Delay
// apart.
type Slice struct {
	Size      int64         // mean slice size, bytes
	Variation int64         // ± uniform variation of a slice's size, bytes
	Delay     time.Duration // between two slices
}

// Slicer applies Slice.
type Slicer interface{ Slice(l LinkEffect, p Slice) }

func (Slice) Name() string { return "slicer" }
func (p Slice) Validate() error {
	switch {
	case p.Size < 1:
		return fmt.Errorf("slicer: slice size %d: need at least 1 byte", p.Size)
	case p.Variation < 0 || p.Variation >= p.Size:
		return fmt.Errorf("slicer: size variation %d: need 0 ≤ variation < size (%d)", p.Variation, p.Size)
	case p.Delay < 0:
		return fmt.Errorf("slicer: negative delay %v", p.Delay)
	}
	return nil
}
func (Slice) Delays() bool { return true }
func (p Slice) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Slicer) { x.Slice(l, p) })
}

// probability checks a per-message probability.
func probability(p float64) error {
	if p < 0 || p > 1 {
		return fmt.Errorf("probability %g outside [0, 1]", p)
	}
	return nil
}

// Loss loses each message with probability P.
type Loss struct {
	P float64 // per message
}

// Loser applies Loss.
type Loser interface{ Lose(l LinkEffect, p Loss) }

func (Loss) Name() string      { return "loss" }
func (p Loss) Validate() error { return probability(p.P) }
func (Loss) Delays() bool      { return false }
func (p Loss) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Loser) { x.Lose(l, p) })
}

// LossSeed seeds the draws of sender from's losses under link effect id
// where a runtime draws them per sender (the live node's link layer: each
// sender draws for its own messages, in the order it sends them). It is
// derived from the trial's seed as the fault stream is, and apart from it,
// so that the fault stream's draws, which both runtimes share for
// selectors and offsets, are the same whether loss runs or not.
func LossSeed(seed uint64, id, from int) uint64 {
	return Mix(seed ^ Mix(0x6c6f7373<<32^uint64(id)<<20^uint64(from))) // "loss"
}

// Duplication delivers each message twice with probability P.
type Duplication struct {
	P float64 // per message
}

// Duplicator applies Duplication.
type Duplicator interface {
	Duplicate(l LinkEffect, p Duplication)
}

func (Duplication) Name() string      { return "duplicate" }
func (p Duplication) Validate() error { return probability(p.P) }
func (Duplication) Delays() bool      { return true }
func (p Duplication) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Duplicator) { x.Duplicate(l, p) })
}

// Reordering holds back each message with probability P, by up to Hold,
// so that later ones may overtake it.
type Reordering struct {
	P    float64       // per message
	Hold time.Duration // the longest hold-back
}

// Reorderer applies Reordering.
type Reorderer interface {
	Reorder(l LinkEffect, p Reordering)
}

func (Reordering) Name() string { return "reorder" }
func (p Reordering) Validate() error {
	if p.Hold < 0 {
		return errors.New("negative latency or jitter")
	}
	return probability(p.P)
}
func (Reordering) Delays() bool { return true }
func (p Reordering) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Reorderer) { x.Reorder(l, p) })
}

// DataLimit lets each link carry Bytes bytes, then loses everything until
// healed.
type DataLimit struct {
	Bytes int64
}

// Limiter applies DataLimit.
type Limiter interface {
	Limit(l LinkEffect, p DataLimit)
}

func (DataLimit) Name() string { return "data-limit" }
func (p DataLimit) Validate() error {
	if p.Bytes < 0 {
		return fmt.Errorf("data limit %d bytes is negative", p.Bytes)
	}
	return nil
}
func (DataLimit) Delays() bool { return false }
func (p DataLimit) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Limiter) { x.Limit(l, p) })
}

// LinkModel draws the links' latency from Model instead of the run's model.
type LinkModel struct {
	Model Latency
}

// Relatencer applies LinkModel.
type Relatencer interface {
	Relatency(l LinkEffect, p LinkModel)
}

func (LinkModel) Name() string { return "link-latency" }
func (p LinkModel) Validate() error {
	if p.Model == nil {
		return errors.New("a link latency override needs a model")
	}
	return nil
}
func (LinkModel) Delays() bool { return true }
func (p LinkModel) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Relatencer) { x.Relatency(l, p) })
}

// Blackhole stops all data on the links (Toxiproxy's timeout toxic); after
// Timeout, if set, the connections are closed.
type Blackhole struct {
	Timeout time.Duration // 0: never closed
}

// Blackholer applies Blackhole.
type Blackholer interface {
	Blackhole(l LinkEffect, p Blackhole)
}

func (Blackhole) Name() string      { return "blackhole" }
func (p Blackhole) Validate() error { return nonNegative(p.Timeout) }
func (Blackhole) Delays() bool      { return false }
func (p Blackhole) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Blackholer) { x.Blackhole(l, p) })
}

// Reset resets the links' connections (TCP RST) Timeout after the effect
// starts, and again while it holds.
type Reset struct {
	Timeout time.Duration
}

// Resetter applies Reset.
type Resetter interface{ Reset(l LinkEffect, p Reset) }

func (Reset) Name() string      { return "reset" }
func (p Reset) Validate() error { return nonNegative(p.Timeout) }
func (Reset) Delays() bool      { return false }
func (p Reset) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x Resetter) { x.Reset(l, p) })
}

// SlowClose delays the closing of the links' connections by Delay.
type SlowClose struct {
	Delay time.Duration
}

// SlowCloser applies SlowClose.
type SlowCloser interface {
	SlowClose(l LinkEffect, p SlowClose)
}

func (SlowClose) Name() string      { return "slow-close" }
func (p SlowClose) Validate() error { return nonNegative(p.Delay) }
func (SlowClose) Delays() bool      { return false }
func (p SlowClose) Apply(inj Injector, l LinkEffect, apply bool) bool {
	return shape(inj, apply, func(x SlowCloser) { x.SlowClose(l, p) })
}

func nonNegative(d time.Duration) error {
	if d < 0 {
		return errors.New("negative timeout or close delay")
	}
	return nil
}
