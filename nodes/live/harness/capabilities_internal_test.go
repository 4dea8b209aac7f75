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
	for e := trial.EffCut; e.OnLinks(); e++ {
		if e == trial.EffNone {
			continue
		}
		f := trial.Fault{Effect: e, Name: e.String(), Links: all, P: 0.5, Latency: time.Millisecond,
			Rate: 1, Bytes: 1, SliceSize: 2, Model: trial.Constant(time.Millisecond), Timeout: time.Millisecond}
		cfg := trial.Config{Ranks: nodes.SmallRanks([]uint32{1, 2}), Faults: []trial.Fault{f}}
		_, err := newFaults(&cfg)
		_, lacks := live.Capabilities.Lacks[e]
		if lacks != (err != nil) {
			t.Errorf("%s: lacked %v by live.Capabilities, but the injector's fault engine says %v", e, lacks, err)
		}
	}
}
