package harness

import (
	"testing"
	"time"
)

// Within a stage Progress hears at most one state per progressEvery, and
// always the first and the last of every stage: 4,032 links coming up over
// a second are about ten calls, the last one complete.
func TestSetupProgressRateLimit(t *testing.T) {
	var calls []Setup
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sp := &setupProgress{f: func(s Setup) { calls = append(calls, s) }, now: func() time.Time { return now }, s: Setup{Stage: -1}}
	sp.stage(Starting, 0, 64)
	for k := 1; k <= 63; k++ {
		now = now.Add(time.Millisecond)
		sp.progress(k)
	}
	// 63 of 64 processes came within 63 ms of the stage's first call: the
	// last of them is held back, and told before the next stage begins.
	sp.proxies(0, 4032)
	sp.stage(Proxying, 0, 4032)
	sp.progress(4032)
	sp.stage(Linking, 0, 4032)
	for k := 1; k <= 4032; k++ {
		now = now.Add(time.Second / 4032)
		sp.progress(k)
	}
	sp.stage(Running, 0, 0)
	var got []string
	for _, c := range calls {
		got = append(got, c.Stage.String())
	}
	type state struct {
		stage       Stage
		done, total int
	}
	want := []state{{Starting, 0, 64}, {Starting, 63, 64}, {Proxying, 0, 4032}, {Proxying, 4032, 4032}, {Linking, 0, 4032}}
	for i, w := range want {
		if c := calls[i]; c.Stage != w.stage || c.Done != w.done || c.Total != w.total {
			t.Fatalf("call %d: %v %d/%d, want %v %d/%d (calls %v)", i, c.Stage, c.Done, c.Total, w.stage, w.done, w.total, got)
		}
	}
	linking := calls[len(want) : len(calls)-1]
	if len(linking) < 9 || len(linking) > 11 {
		t.Errorf("%d calls for a second of linking, want about 10 (one per %v)", len(linking), progressEvery)
	}
	for i, c := range linking {
		if c.Stage != Linking || i > 0 && c.Elapsed-linking[i-1].Elapsed < progressEvery && c.Done < c.Total {
			t.Errorf("linking call %d: %+v", i, c)
		}
	}
	if c := linking[len(linking)-1]; c.Done != 4032 {
		t.Errorf("linking ends at %d of 4032", c.Done)
	}
	if c := calls[len(calls)-1]; c.Stage != Running || c.Made != 0 || c.Kept != 4032 || c.Elapsed != 63*time.Millisecond+4032*(time.Second/4032) {
		t.Errorf("last call %+v", c)
	}
}
