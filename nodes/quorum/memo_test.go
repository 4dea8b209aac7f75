package quorum

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// A memo parses a configuration once while it repeats, and again for any
// change of what the timing reads: the variant, a parameter, N, T or D;
// a caller changing its parameters after the parse changes nothing kept.
func TestMemoParsesEachConfigurationOnce(t *testing.T) {
	parses := 0
	m := memo[raftTiming]{of: func(cfg nodes.Config) (*raftTiming, error) {
		parses++
		return raftTimingOf(cfg)
	}}
	params := nodes.Params{"tmin": "100ms", "tmax": "200ms"}
	cfg := nodes.Config{Params: params, N: 5, T: time.Millisecond, D: 5 * time.Millisecond}
	first, err := m.get(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := m.get(cfg); again != first || parses != 1 {
		t.Fatalf("the same configuration again: %d parses, same result %v; want 1 and the same", parses, again == first)
	}
	params["tmin"] = "150ms"
	tm, err := m.get(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if parses != 2 || tm.tmin != 150*time.Millisecond || first.tmin != 100*time.Millisecond {
		t.Fatalf("tmin changed to 150ms: %d parses, tmin %v, the first's %v; want 2, 150ms, 100ms", parses, tm.tmin, first.tmin)
	}
	for _, c := range []nodes.Config{
		{Params: params, N: 7, T: cfg.T, D: cfg.D},
		{Params: params, N: 7, T: 2 * cfg.T, D: cfg.D},
		{Params: params, N: 7, T: 2 * cfg.T, D: 2 * cfg.D},
		{Params: nodes.Params{"tmin": "150ms", "tmax": "200ms", "heartbeat": "tmin/2"}, N: 7, T: 2 * cfg.T, D: 2 * cfg.D},
	} {
		before := parses
		if _, err := m.get(c); err != nil {
			t.Fatal(err)
		}
		if parses != before+1 {
			t.Fatalf("%+v after a different configuration: %d parses, want %d", c, parses, before+1)
		}
	}
	if _, err := m.get(nodes.Config{Params: nodes.Params{"tmin": "-1ms"}, T: cfg.T}); err == nil {
		t.Fatal("a negative tmin parsed without error")
	}
}
