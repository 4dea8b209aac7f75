package sim

import (
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// A trial's recorded draws, given back as its prefix, run the same trial;
// a prefix of the simplest draws gives the shortest delays (uniform's Lo) and the least
// timer draws; with neither, the seeded streams run as before.
func TestDrawsPrefix(t *testing.T) {
	run := func(d, rec *trial.Draws) []string {
		var log []string
		a := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
			switch {
			case ev == "initiate":
				for range 3 {
					env.Send(1, nodes.Message{Kind: kPing})
				}
				env.SetTimer(time.Duration(env.Rand().IntN(5)+1)*time.Millisecond, tWait)
			case ev == "recv" || ev == "timeout:WAIT":
				log = append(log, env.Self().String()+" "+ev+" "+env.Now().String())
			}
		})
		cfg := trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(2)), Initiators: []int{0}, Seed: 7,
			Latency: trial.Uniform{Lo: time.Millisecond, Hi: 9 * time.Millisecond}, Draws: d, Record: rec}
		if _, err := Run(cfg); err != nil {
			t.Fatal(err)
		}
		return log
	}
	plain := run(nil, nil)
	var rec trial.Draws
	recorded := run(nil, &rec)
	if !slices.Equal(plain, recorded) {
		t.Fatalf("recording changed the trial:\n%q\n%q", plain, recorded)
	}
	if len(rec.Net) != 3 || len(rec.Procs) < 1 || len(rec.Procs[0]) == 0 {
		t.Fatalf("recorded %d network draws and %v process draws, want 3 and p0's", len(rec.Net), rec.Procs)
	}
	if replayed := run(&rec, nil); !slices.Equal(plain, replayed) {
		t.Fatalf("its own draws as prefix changed the trial:\n%q\n%q", plain, replayed)
	}
	simplest := func(n int) []uint64 {
		d := make([]uint64, n)
		for i := range d {
			d[i] = trial.SimplestDraw
		}
		return d
	}
	got := run(&trial.Draws{Net: simplest(3), Procs: [][]uint64{simplest(len(rec.Procs[0]))}}, nil)
	want := []string{"2 recv 1ms", "2 recv 1ms", "2 recv 1ms", "1 timeout:WAIT 1ms"}
	if !slices.Equal(got, want) {
		t.Fatalf("simplest draws: got %q, want %q", got, want)
	}
}
