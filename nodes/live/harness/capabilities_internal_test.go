package harness

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// The declaration and the injector agree: the injector shapes links with
// every link effect live.Capabilities does not lack, and the fault engine
// refuses the lacked ones on it. A shaping interface added to the injector
// without its effect taken off Lacks (or the other way round) fails here.
func TestInjectorMatchesCapabilities(t *testing.T) {
	all := func(trial.View) trial.LinkSet {
		return trial.LinkSet{Has: func(a, b int) bool { return true }, Text: "all"}
	}
	ms := time.Millisecond
	// Every link effect of nodes/trial/shaping.go, with parameters that
	// validate.
	for _, e := range []trial.Shaping{trial.Cut{}, trial.Delay{Latency: ms}, trial.Bandwidth{Rate: 1},
		trial.Slice{Size: 2}, trial.Loss{P: 0.5}, trial.Duplication{P: 0.5}, trial.Reordering{P: 0.5, Hold: ms},
		trial.DataLimit{Bytes: 1}, trial.LinkModel{Model: trial.Constant(ms)}, trial.Blackhole{Timeout: ms},
		trial.Reset{Timeout: ms}, trial.SlowClose{Delay: ms}} {
		f := trial.Fault{Link: e, Name: e.Name(), Links: all}
		cfg := trial.Config{Ranks: nodes.SmallRanks([]uint32{1, 2}), Faults: []trial.Fault{f}}
		_, err := newFaults(&cfg)
		_, lacks := live.Capabilities.Lacks[e.Name()]
		if lacks != (err != nil) {
			t.Errorf("%s: lacked %v by live.Capabilities, but the injector's fault engine says %v", e.Name(), lacks, err)
		}
	}
	// The process effects the fault engine asks an optional interface
	// for: a slow process (trial.Slower).
	slow := trial.Fault{Effect: trial.EffSlow, Name: "slow", Service: ms, Targets: func(trial.View) []int { return []int{0} }}
	cfg := trial.Config{Ranks: nodes.SmallRanks([]uint32{1, 2}), Faults: []trial.Fault{slow}}
	_, err := newFaults(&cfg)
	_, lacks := live.Capabilities.Lacks[slow.What()]
	if lacks != (err != nil) {
		t.Errorf("slow: lacked %v by live.Capabilities, but the injector's fault engine says %v", lacks, err)
	}
}
