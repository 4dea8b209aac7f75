package main

import (
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkHugeRings runs, in-process and end to end (plan, set-up,
// simulation, checker, rows), the simulated runs of the issue "Scale
// without surprises": one chang-roberts election on a ring of millions of
// processes, and lcr and hs with every process initiating. Its CPU profile,
// merged with that of workloads' BenchmarkSmallTrials (raft, chang-roberts
// and bully with a crash: sweeps of small trials, whose hot calls the rings
// never make), is default.pgo, the profile the command is built with
// (profile-guided optimisation: the hot path's calls are inlined, sim.deliver
// into the run loop and the ring algorithms' rules into Receive among them,
// and the event queue's and the latency model's interface calls
// devirtualised; the calls through nodes.Machine and nodes.Env stay calls);
// after a change to the hot path, make it again with
//
//	go test -run '^$' -bench HugeRings -benchtime 1x -cpuprofile /tmp/rings.pprof ./cmd/electbench
//	go test -run '^$' -bench 'BenchmarkSmallTrials/^(raft|chang-roberts|bully)$/crash' -benchtime 20000x -cpuprofile /tmp/small.pprof ./workloads
//	go tool pprof -proto /tmp/rings.pprof /tmp/small.pprof > cmd/electbench/default.pgo
func BenchmarkHugeRings(b *testing.B) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"chang-roberts-3e6", []string{"--algo", "chang-roberts", "--nodes", "3000000", "--initiators", "successor-of-max", "--latency", "1ms"}},
		{"lcr-all-3e5", []string{"--algo", "lcr", "--nodes", "300000", "--initiators", "all", "--latency", "1ms"}},
		{"hs-all-1e5", []string{"--algo", "hs", "--nodes", "100000", "--initiators", "all", "--latency", "uniform(1ms,5ms)"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				out := filepath.Join(b.TempDir(), "out")
				args := append([]string{"run", "--trials", "1", "--format", "csv", "--out", out}, c.args...)
				if code := run(args, io.Discard, io.Discard); code != exitOK {
					b.Fatalf("electbench %v: exit %d", args, code)
				}
			}
		})
	}
}
