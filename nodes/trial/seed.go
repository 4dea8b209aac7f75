package trial

import "math/rand/v2"

// Mix is splitmix64's finaliser: distinct inputs give unrelated values. The
// runtimes and the workload derive every stream of a trial's randomness
// from its seed with it.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// FaultRand is a trial's fault stream (trial.View.Rand): seeded by the
// trial's seed apart from every other source, so that faults never change
// the draws of a fault-free run, and the same in every runtime, so that a
// selector such as random(2) picks the same processes in both.
func FaultRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x6661756c7473)) // "faults"
}

// ProcessRand is process p's own stream (nodes.Env.Rand): seeded by the
// trial's seed apart from every other process's and from the network's,
// the same in every runtime and in nodetest's network, so that a machine
// draws the same values wherever it runs.
func ProcessRand(seed uint64, p int) *rand.Rand {
	src := new(rand.PCG)
	SeedProcess(src, seed, p)
	return rand.New(src)
}

// SeedProcess seeds src as ProcessRand(seed, p)'s source: a runtime that
// keeps a generator across trials reseeds it so and draws what a fresh
// ProcessRand would.
func SeedProcess(src *rand.PCG, seed uint64, p int) { src.Seed(seed, Mix(uint64(p)+1)) }
