package sim_test

import (
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

// Performance targets (issue "The spine"): ≥ 10 M delivered messages/s on one
// core for chang-roberts under constant latency; ≥ 2.5 M/s for lcr with all of
// N = 1,000,000 initiating under a random latency model; a single-initiator
// election on a 1,000,000-node ring in well under a second within 1 GiB.
// Run: go test -run '^$' -bench . -benchtime 1x ./nodes/sim

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ascending(n int) []nodes.Rank {
	r := make([]nodes.Rank, n)
	for i := range r {
		r[i] = nodes.RankOf(uint64(i + 1))
	}
	return r
}

func shuffled(n int) []nodes.Rank {
	r := ascending(n)
	src := rand.New(rand.NewPCG(1, 2))
	src.Shuffle(n, func(i, j int) { r[i], r[j] = r[j], r[i] })
	return r
}

func bench(b *testing.B, algo string, ranks []nodes.Rank, initiators []int, lat trial.Latency) {
	b.Helper()
	a, v, err := nodes.Lookup(algo)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	// Held small, as the workloads' arrangements hold them (nodes.Ranks).
	ids := make([]uint64, len(ranks))
	for i, r := range ranks {
		ids[i], _ = r.ID.Small()
	}
	held := nodes.RanksFrom(ids...)
	var msgs int64
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuTime()
	for range b.N {
		res, err := sim.Run(trial.Config{Algorithm: a, Variant: v, Ranks: held, Initiators: initiators, Latency: lat, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpuStart
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(msgs)/elapsed.Seconds(), "msgs/s")
	// The simulator runs a trial on one goroutine: messages per CPU-second is
	// its one-core rate even when other work shares the machine.
	b.ReportMetric(float64(msgs)/cpu.Seconds(), "msgs/cpu-s")
	b.ReportMetric(float64(msgs)/float64(b.N), "msgs/op")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MiB-alloc/op")
	b.ReportMetric(float64(after.HeapSys)/(1<<20), "MiB-heap-sys")
}

func BenchmarkChangRobertsConstant(b *testing.B) {
	n := 100_000
	bench(b, "chang-roberts", ascending(n), []int{0}, trial.Constant(time.Millisecond)) // worst case: 3N−1
}

// Every process initiates on a descending ring: N(N+1)/2 + N messages, so
// the rate measures the event loop rather than setting up the processes.
func BenchmarkChangRobertsAllDescending(b *testing.B) {
	n := 4000
	r := ascending(n)
	for i := range r {
		r[i] = nodes.RankOf(uint64(n - i))
	}
	bench(b, "chang-roberts", r, trial.AllPositions(n), trial.Constant(time.Millisecond))
}

func BenchmarkChangRobertsSingleInitiator1M(b *testing.B) {
	n := 1_000_000
	bench(b, "chang-roberts", shuffled(n), []int{0}, trial.Constant(time.Millisecond))
}

func BenchmarkLCRAll1MUniform(b *testing.B) {
	n := 1_000_000
	bench(b, "lcr", shuffled(n), nil, trial.Uniform{Lo: time.Millisecond, Hi: 5 * time.Millisecond})
}

func BenchmarkLCRAll1MConstant(b *testing.B) {
	n := 1_000_000
	bench(b, "lcr", shuffled(n), nil, trial.Constant(time.Millisecond))
}

func BenchmarkHSAll1MConstant(b *testing.B) {
	n := 1_000_000
	bench(b, "hs", shuffled(n), nil, trial.Constant(time.Millisecond))
}

func BenchmarkHSAll1MUniform(b *testing.B) {
	n := 1_000_000
	bench(b, "hs", shuffled(n), nil, trial.Uniform{Lo: time.Millisecond, Hi: 5 * time.Millisecond})
}

// Bully on a complete graph holds about N²·1.5 messages pending at its
// busiest (issue 42: 25 million at N = 4,096): the cost of the queue and of
// a pending event's bytes when the pending set is big.
func BenchmarkBully2048Uniform(b *testing.B) {
	n := 2048
	bench(b, "bully", shuffled(n), []int{0}, trial.Uniform{Lo: time.Millisecond, Hi: 5 * time.Millisecond})
}

func BenchmarkBully2048Constant(b *testing.B) {
	n := 2048
	bench(b, "bully", shuffled(n), []int{0}, trial.Constant(time.Millisecond))
}
