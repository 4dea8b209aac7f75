package workloads

import "github.com/electbench/electbench/nodes/trial"

// TrialSeed derives trial i's seed from the run's seed S. Every random choice
// of the trial (arrangement, initiators, latencies, per-process sources) is
// drawn from sources seeded by this value, so any trial can be rerun alone
// from the seed printed in its row.
func TrialSeed(s uint64, i int) uint64 { return trial.Mix(s ^ trial.Mix(uint64(i)+0x5eed)) }

// stream constants keep the sources drawn from one trial seed apart.
const (
	streamIDs        = 0x1d5
	streamInitiators = 0x1417
	streamEpoch      = 0xe90c
)
