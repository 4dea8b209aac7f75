package harness

import (
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// The 128-node complete graph: 16,256 proxies and about 49k file
// descriptors, which a host allowing 20,000 cannot hold; the check says so
// before anything starts, with the ulimit -n needed and the largest
// cluster the limit allows (3m² + 64 ≤ 20,000: m = 81).
func TestCheckHost(t *testing.T) {
	if n := NeedsFor(128, nodes.Complete, false, true); n.Proxies != 16256 || n.FDs != 64+5*128+3*16256 {
		t.Fatalf("needs of 128 complete: %+v", n)
	}
	if n := NeedsFor(128, nodes.RingUni, false, true); n.Proxies != 128 {
		t.Fatalf("needs of a quiet 128-ring: %+v", n)
	}
	if n := NeedsFor(128, nodes.RingBi, true, false); n.Proxies != 16256 || n.FDs != 64+5*128 {
		t.Fatalf("needs of a faulty 128-ring with an external Toxiproxy: %+v", n)
	}
	old := fdLimit
	defer func() { fdLimit = old }()
	fdLimit = func() (uint64, bool) { return 20000, true }
	err := CheckHost(128, nodes.Complete, false, true)
	if err == nil || !strings.Contains(err.Error(), "ulimit -n 49472") || !strings.Contains(err.Error(), "at most 81 nodes") {
		t.Fatalf("128 complete under 20000: %v", err)
	}
	if err := CheckHost(81, nodes.Complete, false, true); err != nil {
		t.Fatalf("81 complete under 20000: %v", err)
	}
	if err := CheckHost(128, nodes.RingUni, false, true); err != nil {
		t.Fatalf("a quiet 128-ring under 20000: %v", err)
	}
}
