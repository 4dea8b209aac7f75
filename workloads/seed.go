package workloads

// TrialSeed derives trial i's seed from the run's seed S. Every random choice
// of the trial (arrangement, initiators, latencies, per-process sources) is
// drawn from sources seeded by this value, so any trial can be rerun alone
// from the seed printed in its row.
func TrialSeed(s uint64, i int) uint64 { return mix(s ^ mix(uint64(i)+0x5eed)) }

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// stream constants keep the sources drawn from one trial seed apart.
const (
	streamIDs        = 0x1d5
	streamInitiators = 0x1417
	streamCrashes    = 0xc4a5
	streamEpoch      = 0xe90c
)
