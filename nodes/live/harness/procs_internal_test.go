package harness

import (
	"slices"
	"testing"
)

// A node process collects at NodeGOGC unless the harness's environment or
// the options set GOGC, which it then keeps.
func TestNodeEnv(t *testing.T) {
	for _, tc := range []struct {
		own, extra, want []string
	}{
		{nil, nil, []string{"GOGC=" + NodeGOGC}},
		{[]string{"HOME=/root", "NOTGOGC=5"}, []string{"X=1"}, []string{"X=1", "GOGC=" + NodeGOGC}},
		{[]string{"GOGC=50"}, []string{"X=1"}, []string{"X=1"}},
		{nil, []string{"GOGC=off"}, []string{"GOGC=off"}},
	} {
		extra := slices.Clone(tc.extra)
		if got := nodeEnv(tc.own, extra); !slices.Equal(got, tc.want) {
			t.Errorf("own %q, extra %q: %q, want %q", tc.own, tc.extra, got, tc.want)
		}
		if !slices.Equal(extra, tc.extra) {
			t.Errorf("own %q, extra %q: the options' environment changed to %q", tc.own, tc.extra, extra)
		}
	}
}
