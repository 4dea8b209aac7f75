package trial

import (
	"math/rand/v2"
	"slices"
)

// Draws is a recorded prefix of a trial's random draws, as the raw 64-bit
// values its sources gave: the network's stream (the latency samples of
// the simulator's links) and each process's (nodes.Env.Rand, by
// position). A trial given Draws takes the prefix's values in order and
// the seeded generator's after it, so that a shrinker can replace draws
// by simpler ones (SimplestDraw: the shortest delay, the least timer) as rapid and
// Hypothesis shrink a choice sequence (docs/SHRINK.md).
type Draws struct {
	Net   []uint64   // the network's stream
	Procs [][]uint64 // by position: each process's stream; missing or nil: none
}

// SimplestDraw is the simplest value of a draw: the least that every
// method of rand.Rand takes without rejecting it and drawing again (0 is
// rejected by IntN and Int64N of most bounds). IntN and Int64N give 0 of
// it, Float64 2^-53, ExpFloat64 0 and NormFloat64 0: a uniform delay its
// least, an exponential one 0, a drawn timer its least.
const SimplestDraw = 1

// MaxRecorded bounds the draws recorded of each stream (Config.Record):
// a long trial draws millions, a shrinker edits the first.
const MaxRecorded = 1 << 12

// netSalt separates the network's stream from the others.
const netSalt = 0x6e6574776f726b // "network"

// NetRand is the network's stream of a trial of seed seed, taking the
// prefix of d (nil: none) first and recording into rec (nil: not): with
// neither it is the seeded generator itself, so that a trial without
// draws pays nothing for them.
func NetRand(seed uint64, d, rec *Draws) *rand.Rand {
	src := new(rand.PCG)
	SeedNet(src, seed)
	if d == nil && rec == nil {
		return rand.New(src)
	}
	var prefix []uint64
	if d != nil {
		prefix = d.Net
	}
	return rand.New(&prefixed{src: src, prefix: prefix, rec: rec, stream: netStream})
}

// SeedNet seeds src as the network's stream of a trial of seed seed
// without draws (NetRand), for a runtime that keeps it across trials.
func SeedNet(src *rand.PCG, seed uint64) { src.Seed(seed, netSalt) }

// ProcessDrawsRand is ProcessRand taking the prefix of d's stream of
// process p first and recording into rec's (nil: none, not), with
// ProcessRand's generator after the prefix.
func ProcessDrawsRand(seed uint64, p int, d, rec *Draws) *rand.Rand {
	if d == nil && rec == nil {
		return ProcessRand(seed, p)
	}
	var prefix []uint64
	if d != nil && p < len(d.Procs) {
		prefix = d.Procs[p]
	}
	return rand.New(&prefixed{src: rand.NewPCG(seed, Mix(uint64(p)+1)), prefix: prefix, rec: rec, stream: p})
}

// prefixed is a source that gives its prefix first, then src's values.
// src advances in step with the prefix, so that the value after a prefix
// is the one the seeded generator gives at that place: recording a
// trial's draws and replaying them runs the same trial, and replacing one
// draw changes no other.
type prefixed struct {
	src    rand.Source
	prefix []uint64
	i      int
	rec    *Draws // nil: not recording
	stream int    // in rec: netStream or a process's position
}

// netStream names the network's stream in prefixed.stream.
const netStream = -1

func (s *prefixed) Uint64() uint64 {
	v := s.src.Uint64()
	if s.i < len(s.prefix) {
		v = s.prefix[s.i]
	}
	s.i++
	if s.rec != nil {
		s.rec.add(s.stream, v)
	}
	return v
}

// add records v on stream: through the Draws, never a pointer into its
// Procs, which grows as processes draw for the first time in any order.
func (d *Draws) add(stream int, v uint64) {
	if stream == netStream {
		if len(d.Net) < MaxRecorded {
			d.Net = append(d.Net, v)
		}
		return
	}
	for len(d.Procs) <= stream {
		d.Procs = append(d.Procs, nil)
	}
	if len(d.Procs[stream]) < MaxRecorded {
		d.Procs[stream] = append(d.Procs[stream], v)
	}
}

// Trim drops from each of d's streams the trailing draws that are the
// seeded generator's own at their places (a trial of seed seed draws them
// without d), then the trailing processes left without any: the trial
// runs the same. It reports whether any draw is left.
func (d *Draws) Trim(seed uint64) bool {
	d.Net = trimSeeded(d.Net, rand.NewPCG(seed, netSalt))
	for p := range d.Procs {
		d.Procs[p] = trimSeeded(d.Procs[p], rand.NewPCG(seed, Mix(uint64(p)+1)))
	}
	for len(d.Procs) > 0 && len(d.Procs[len(d.Procs)-1]) == 0 {
		d.Procs = d.Procs[:len(d.Procs)-1]
	}
	if len(d.Procs) == 0 {
		d.Procs = nil
	}
	return len(d.Net) > 0 || len(d.Procs) > 0
}

// trimSeeded is v without its trailing values equal to src's at their
// places; nil when none is left.
func trimSeeded(v []uint64, src rand.Source) []uint64 {
	end := 0
	for i, x := range v {
		if x != src.Uint64() {
			end = i + 1
		}
	}
	if end == 0 {
		return nil
	}
	return v[:end]
}

// Clone is a deep copy of d.
func (d *Draws) Clone() *Draws {
	c := &Draws{Net: slices.Clone(d.Net)}
	for _, p := range d.Procs {
		c.Procs = append(c.Procs, slices.Clone(p))
	}
	return c
}
