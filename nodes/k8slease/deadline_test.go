package k8slease

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// TestDefaultDeadlineCoversARetry pins the default deadline of a k8s-lease
// trial: three retry periods when that is longer than the harness's
// default, so that a candidate that lost the first race has its next try
// (within 2.2 retry periods) before the trial is judged; at the library's
// defaults the harness's 1.3 s judged every trial undecided. A deadline
// that is set is kept.
func TestDefaultDeadlineCoversARetry(t *testing.T) {
	alg, _, err := nodes.Lookup("k8s-lease")
	if err != nil {
		t.Fatal(err)
	}
	ranks := nodes.RanksFrom(1, 2, 3)
	for _, c := range []struct {
		params   nodes.Params
		deadline time.Duration
		want     time.Duration
	}{
		{nil, 0, 6 * time.Second},                                          // RP 2s
		{nodes.Params{"retry-period": "3s"}, 0, 9 * time.Second},           // 3 RP
		{nodes.Params{"retry-period": "20ms"}, 0, 1300 * time.Millisecond}, // the harness's: (100·3+1000)T
		{nil, 500 * time.Millisecond, 500 * time.Millisecond},              // set: kept
	} {
		cfg := trial.DefaultConfig()
		cfg.Algorithm, cfg.Ranks, cfg.Params, cfg.Deadline = alg, ranks, c.params, c.deadline
		if got := cfg.DeadlineOrDefault(); got != c.want {
			t.Errorf("params %v, deadline %v: DeadlineOrDefault %v, want %v", c.params, c.deadline, got, c.want)
		}
	}
}
