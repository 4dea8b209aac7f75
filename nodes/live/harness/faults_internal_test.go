package harness

import (
	"fmt"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/trial"
)

// Link faults map onto Toxiproxy toxics in Toxiproxy's units (or disabled
// proxies, for cuts), put on exactly the links the simulator would affect.
// Here the trial has no links yet (a fault from the start), so the effects
// wait for them and can be read without a Toxiproxy.
func TestToxics(t *testing.T) {
	const T = 2 * time.Millisecond
	every := func(trial.View) trial.LinkSet {
		return trial.LinkSet{Has: func(a, b int) bool { return true }, Text: "all"}
	}
	// The faults as chaos compiles a scenario's (its kinds' parameters in
	// units of T, now durations): latency 3T ± 1ms on a quarter of the
	// links, bandwidth 64 KB/s, slicer 8 ± 2 bytes 1T apart, reset after
	// 5T, blackhole closing after 2T, slow-close 1T, 100 bytes, a cut.
	var faults []trial.Fault
	for _, l := range []trial.Shaping{trial.Delay{Latency: 3 * T, Jitter: time.Millisecond}, trial.Bandwidth{Rate: 64000},
		trial.Slice{Size: 8, Variation: 2, Delay: T}, trial.Reset{Timeout: 5 * T}, trial.Blackhole{Timeout: 2 * T},
		trial.SlowClose{Delay: T}, trial.DataLimit{Bytes: 100}, trial.Cut{}} {
		faults = append(faults, trial.Fault{Link: l, Name: l.Name(), Links: every})
	}
	faults[0].Toxicity = 0.25
	want := []string{
		"chaos-0-latency latency map[jitter:1 latency:6]",
		"chaos-1-bandwidth bandwidth map[rate:64]",
		"chaos-2-slicer slicer map[average_size:8 delay:2000 size_variation:2]",
		"chaos-3-reset_peer reset_peer map[timeout:10]",
		"chaos-4-timeout timeout map[timeout:4]",
		"chaos-5-slow_close slow_close map[delay:2]",
		"chaos-6-limit_data limit_data map[bytes:100]",
		"cut",
	}
	const n = 4
	ranks := make([]nodes.Rank, n)
	for i := range ranks {
		ranks[i] = nodes.RankOf(uint64(i + 1))
	}
	alg, variant, err := nodes.Lookup("ring")
	if err != nil {
		t.Fatal(err) // main_test.go registers every algorithm
	}
	cfg := trial.Config{Algorithm: alg, Variant: variant, Ranks: nodes.RanksOf(ranks), Latency: trial.Constant(T), Seed: 3}
	cfg.Faults = faults
	fs, err := newFaults(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	lt := running(&Runtime{srv: servers{clients: []*toxi.Client{toxi.NewClient("http://127.0.0.1:1")}}}, cfg, ranks)
	lt.clock.started = false
	fs.attach(&lt.cfg, lt.det, lt, lt.procs, lt.links, lt.clock)
	fs.log, lt.faults = lt.log, fs
	fs.tl.Begin(injector{fs})
	if len(lt.faults.deferred) != len(want) {
		t.Fatalf("%d effects wait for the links, want %d", len(lt.faults.deferred), len(want))
	}
	for i, w := range want {
		e := lt.faults.effects[i]
		got := "cut"
		if !e.cut {
			got = fmt.Sprint(e.toxic.name, " ", e.toxic.typ, " ", e.toxic.attrs)
		}
		if got != w {
			t.Errorf("%s: %s, want %s", faults[i].Name, got, w)
		}
	}
	// The links a toxicity of 0.25 picks are the simulator's: those for
	// which trial.LinkEffect.Affects says so.
	lt.links.list = []link{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {1, 0}, {2, 1}, {3, 2}, {0, 3}}
	e := lt.faults.effects[0]
	for _, k := range lt.links.list {
		if e.l.Affects(cfg.Seed, k[0], k[1]) {
			e.links = append(e.links, k) // what apply resolves
		}
	}
	if len(e.links) == 0 || len(e.links) == len(lt.links.list) {
		t.Errorf("toxicity 0.25 over 8 links affects %v: seed 3 should pick some, not all", e.links)
	}
}
