package etcdraft

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// BenchmarkSimTrial is etcd-raft's simulated speed: one trial is N
// processes, uniform latency around T = 1ms, the first leader crashed 20T
// after it is elected, run to 300T. It reports the simulator's steps
// (events) per second and trials per second, with the determinism
// mechanism (seeded: etcd's draws routed to the trial's seed through
// rand.go's per-goroutine slots) and without it (unseeded: etcd draws from
// the system), which is what the mechanism costs. On a
// shared machine compare cpu-µs/trial and steps/cpu-s, not the wall clock.
func BenchmarkSimTrial(b *testing.B) {
	alg, variant, err := nodes.Lookup("etcd-raft")
	if err != nil {
		b.Fatal(err)
	}
	lat, err := trial.ParseLatency("uniform(0.5ms,1.5ms)")
	if err != nil {
		b.Fatal(err)
	}
	crash := trial.Fault{Effect: trial.EffCrash, Name: "crash(leader)",
		Start:   trial.When{Trigger: trial.LeaderElected, Delay: 20 * time.Millisecond},
		Targets: func(v trial.View) []int { return []int{v.Leader()} }}
	for _, n := range []int{5, 51} {
		ranks := make([]nodes.Rank, n)
		for i, id := range rand.New(rand.NewPCG(1, 5)).Perm(n) {
			ranks[i] = nodes.RankOf(uint64(id + 1))
		}
		for _, seeded := range []bool{true, false} {
			mode := map[bool]string{true: "seeded", false: "unseeded"}[seeded]
			b.Run(fmt.Sprintf("N=%d/%s", n, mode), func(b *testing.B) {
				deterministic = seeded
				defer func() { deterministic = true }()
				var steps int64
				seed := uint64(0)
				cpu0 := cpuTime()
				for b.Loop() {
					seed++
					res, err := sim.Run(trial.Config{Algorithm: alg, Variant: variant, Ranks: nodes.RanksOf(ranks), Latency: lat,
						Seed: seed, Deadline: 300 * time.Millisecond, Faults: []trial.Fault{crash}})
					if err != nil {
						b.Fatal(err)
					}
					steps += res.Events
				}
				reportSteps(b, steps, cpu0)
			})
		}
	}
}

// reportSteps reports a benchmark's trials and steps (machine events) by
// wall time and by CPU time since cpu0 (every thread, the collector's
// included: steadier than the wall clock on a loaded machine).
func reportSteps(b *testing.B, steps int64, cpu0 time.Duration) {
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(steps)/s, "steps/s")
	b.ReportMetric(float64(b.N)/s, "trials/s")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/trial")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/trial")
		b.ReportMetric(float64(steps)/cpu.Seconds(), "steps/cpu-s")
	}
}
