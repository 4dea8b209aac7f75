package shrink

import (
	"math"

	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/workloads"
)

// fileSeed is the seed a one-trial scenario needs for its trial to run
// with trialSeed, the seed trial i of another scenario ran with
// (workloads.TrialSeed(s, i) = Mix(s ^ Mix(i + 0x5eed)), and trial.Mix is
// a bijection): false when that seed is larger than a scenario file's
// seed may be (2^63 − 1).
func fileSeed(trialSeed uint64) (uint64, bool) {
	s := unmix(trialSeed) ^ trial.Mix(0x5eed)
	if s > math.MaxInt64 || workloads.TrialSeed(s, 0) != trialSeed {
		return 0, false
	}
	return s, true
}

// unmix inverts trial.Mix (splitmix64's finalizer): each xorshift and
// each multiplication by an odd constant is undone in reverse order.
func unmix(x uint64) uint64 {
	x = unshift(x, 31)
	x *= inverse(0x94d049bb133111eb)
	x = unshift(x, 27)
	x *= inverse(0xbf58476d1ce4e5b9)
	x = unshift(x, 30)
	return x - 0x9e3779b97f4a7c15
}

// unshift inverts x ^ x>>s.
func unshift(y uint64, s uint) uint64 {
	x := y
	for i := uint(0); i*s < 64; i++ {
		x = y ^ x>>s
	}
	return x
}

// inverse is the multiplicative inverse of an odd c modulo 2^64 (Newton's
// iteration doubles the correct low bits each step: 5 steps from 3 bits).
func inverse(c uint64) uint64 {
	v := c
	for range 5 {
		v *= 2 - c*v
	}
	return v
}
