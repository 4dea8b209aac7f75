package workloads

import (
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/live"
)

// Every fault kind's documentation (docs/scenarios.md, generated from
// chaos's registry) says what the kind does live; a kind the live runtime
// lacks (live.Capabilities, its one declaration) must say it is not
// available there, and every other kind must say how it is applied, so the
// reference cannot promise what the runtime refuses, nor the other way
// round.
func TestKindDocsMatchLiveCapabilities(t *testing.T) {
	lacked := 0
	for _, k := range chaos.Kinds() {
		f := chaos.Fault{Kind: k.Name}
		tf := f.Compile(time.Millisecond)
		_, lacks := live.Capabilities.Lacks[tf.What()]
		says := strings.HasPrefix(k.Live, "not available")
		if lacks != says {
			t.Errorf("kind %s: live.Capabilities lacks %q: %v, but its Live documentation reads %q", k.Name, tf.What(), lacks, k.Live)
		}
		if lacks {
			lacked++
		}
	}
	if lacked == 0 {
		t.Fatal("no kind is lacked live: is the effect's name (trial.Fault.What) still the declaration's key?")
	}
}
