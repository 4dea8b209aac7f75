//go:build unix

package harness_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness"
)

// BenchmarkLive32 elects with every algorithm on a 32-node live cluster
// (32 processes; 992 proxies for the complete topologies) through an
// external toxiproxy-server, the lowest process initiating. It reports the
// wall time of a trial (setup included) and the CPU time of the harness
// (this process), of Toxiproxy and of the nodes, per trial.
//
// T is 10 ms, except for bully and multicast: when the lowest initiates,
// all 31 others start elections at once, 961 messages whose processing
// spreads the processes' clocks by tens of milliseconds on two cores; with
// a T below that spread an election message arrives after its receiver has
// finished an election and starts another, as the algorithms prescribe,
// and the elections cascade. At T = 50 ms they end as in the simulator.
// The quorum algorithms are judged after 3 s.
func BenchmarkLive32(b *testing.B) {
	url, srv := externalToxiproxy(b)
	base := options(b)
	base.Toxiproxy = url
	for _, a := range nodes.Algorithms() {
		b.Run(a.Name, func(b *testing.B) {
			opt := base
			T := 10 * time.Millisecond
			if a.Family == "bully" {
				T = 50 * time.Millisecond
				// And their timers (2T) must outlast that spread too.
				opt.Allowance = 100 * time.Millisecond
			}
			r, err := harness.New(context.Background(), opt)
			if err != nil {
				b.Fatal(err)
			}
			closed := false
			defer func() {
				if !closed {
					r.Close()
				}
			}()
			ranks := random(32, 1)
			cfg := config(b, a.Name, ranks, []int{lowest(ranks)}, T)
			cfg.Deadline = 30 * time.Second
			if a.Quorum != nil {
				cfg.Deadline = 3 * time.Second
			}
			var self0, self1, kids0, kids1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
			syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
			toxi0 := cpu(srv.Pid)
			var msgs int64
			b.ResetTimer()
			for range b.N {
				res, v, _ := run(b, r, cfg)
				if !v.Correct || !v.Live {
					b.Fatalf("%s at N=32: %+v", a.Name, v)
				}
				msgs += res.Messages
			}
			b.StopTimer()
			r.Close() // reaps the nodes the runtime kept between trials
			closed = true
			syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
			syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1)
			per := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(b.N) }
			used := func(a, b syscall.Rusage) time.Duration {
				return time.Duration(b.Utime.Nano() + b.Stime.Nano() - a.Utime.Nano() - a.Stime.Nano())
			}
			b.ReportMetric(float64(msgs)/float64(b.N), "msgs/trial")
			b.ReportMetric(per(used(self0, self1)), "harness-cpu-ms/trial")
			b.ReportMetric(per(cpu(srv.Pid)-toxi0), "toxiproxy-cpu-ms/trial")
			b.ReportMetric(per(used(kids0, kids1)), "nodes-cpu-ms/trial")
		})
	}
}

// BenchmarkLiveKept runs raft on 64 live processes (a complete graph:
// 4,032 proxies) through an external toxiproxy-server, b.N trials on one
// runtime, which makes the cluster's proxies and processes at the first
// trial and keeps them, linked, for the rest. Compare -benchtime=1x with 10x: what the cluster
// costs is paid once. Each trial runs to its deadline (raft never falls
// quiet: its leader keeps sending heartbeats), (100N+1000)T = 7.4 s at
// T = 1 ms. It reports the wall time of a trial (setup included) and the
// CPU time of the harness (this process), of Toxiproxy and of the nodes,
// per trial.
func BenchmarkLiveKept(b *testing.B) {
	const n = 64
	url, srv := externalToxiproxy(b)
	opt := options(b)
	opt.Toxiproxy = url
	r, err := harness.New(context.Background(), opt)
	if err != nil {
		b.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			r.Close()
		}
	}()
	var self0, self1, kids0, kids1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
	toxi0 := cpu(srv.Pid)
	b.ResetTimer()
	for i := range b.N {
		cfg := config(b, "raft", random(n, uint64(i)), nil, time.Millisecond)
		cfg.Seed = uint64(i)
		if _, v, _ := run(b, r, cfg); !v.Correct || !v.Live {
			b.Fatalf("raft at N=%d, trial %d: %+v", n, i, v)
		}
	}
	b.StopTimer()
	// The nodes' CPU is known once they are reaped: the runtime keeps
	// them, linked, between trials (warm.go) until it is closed.
	r.Close()
	closed = true
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1)
	per := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(b.N) }
	used := func(a, b syscall.Rusage) time.Duration {
		return time.Duration(b.Utime.Nano() + b.Stime.Nano() - a.Utime.Nano() - a.Stime.Nano())
	}
	b.ReportMetric(per(used(self0, self1)), "harness-cpu-ms/trial")
	b.ReportMetric(per(cpu(srv.Pid)-toxi0), "toxiproxy-cpu-ms/trial")
	b.ReportMetric(per(used(kids0, kids1)), "nodes-cpu-ms/trial")
}
