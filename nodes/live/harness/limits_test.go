package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// The 128-node complete graph: 16,256 proxies and about 49k file
// descriptors in one process, which a host allowing 20,000 cannot hold.
// Embedded, the proxies are split over the least number of Toxiproxy
// processes whose shares fit the limit with room (7/8 of it): three, of
// 43, 43 and 42 receiving nodes. A cluster one process can hold (64
// complete: 12,480) keeps one server, as before.
func TestServers(t *testing.T) {
	if n := NeedsFor(128, nodes.Complete, false, true); n.Proxies != 16256 || n.FDs != 64+5*128+3*16256 {
		t.Fatalf("needs of 128 complete: %+v", n)
	}
	if n := NeedsFor(128, nodes.RingUni, false, true); n.Proxies != 128 {
		t.Fatalf("needs of a quiet 128-ring: %+v", n)
	}
	if n := NeedsFor(128, nodes.RingBi, true, false); n.Proxies != 16256 || n.FDs != 64+5*128 {
		t.Fatalf("needs of a faulty 128-ring with an external Toxiproxy: %+v", n)
	}
	need := NeedsFor(128, nodes.Complete, false, true)
	if got, want := need.Shares(3), []int{64 + 5*128 + 3*43*127, 64 + 3*43*127, 64 + 3*42*127}; !slices.Equal(got, want) {
		t.Fatalf("shares of 128 complete on 3 servers: %v, want %v", got, want)
	}
	if got := need.Shares(1); !slices.Equal(got, []int{need.FDs}) {
		t.Fatalf("shares on one server: %v, want the whole %d", got, need.FDs)
	}
	old := fdLimit
	defer func() { fdLimit = old }()
	fdLimit = func() (uint64, bool) { return 20000, true }
	for _, c := range []struct {
		n        int
		topo     nodes.Topology
		all      bool
		embedded bool
		want     int
	}{
		{128, nodes.Complete, false, true, 3}, // 2 would be 25,088 in the harness
		{100, nodes.Complete, false, true, 2}, // 64+500+3·50·99 = 15,414 ≤ 17,500
		{81, nodes.Complete, false, true, 1},  // 64+405+3·6480 = 19,909 ≤ 20,000: as before, no room asked
		{64, nodes.Complete, false, true, 1},
		{128, nodes.RingUni, false, true, 1},
		{128, nodes.RingBi, true, true, 3}, // a faulty ring may use every link
		{128, nodes.Complete, false, false, 1},
	} {
		k, err := Servers(c.n, c.topo, c.all, c.embedded)
		if err != nil || k != c.want {
			t.Errorf("%d %s (all links %v, embedded %v) under 20000: %d servers, %v; want %d", c.n, c.topo, c.all, c.embedded, k, err, c.want)
		}
		if err := CheckHost(c.n, c.topo, c.all, c.embedded); err != nil {
			t.Errorf("%d %s: CheckHost: %v", c.n, c.topo, err)
		}
	}
	// No split fits a limit below the harness's own descriptors and the
	// proxies into one node: refused, saying so.
	fdLimit = func() (uint64, bool) { return 700, true }
	if _, err := Servers(128, nodes.Complete, false, true); err == nil || !strings.Contains(err.Error(), "even split over 128 Toxiproxy processes") {
		t.Errorf("128 complete under 700: %v", err)
	}
	// An external server is one process the harness does not split: only
	// the harness's own descriptors are checked, as before.
	fdLimit = func() (uint64, bool) { return 500, true }
	if err := CheckHost(128, nodes.Complete, false, false); err == nil || !strings.Contains(err.Error(), "ulimit -n 704") {
		t.Errorf("128 complete with an external server under 500: %v", err)
	}
}

// Each directed link's proxy is on the server of its receiving node: the
// nodes are dealt to the servers in contiguous blocks whose sizes differ
// by at most one, every server gets some, and one server holds all.
func TestServerOf(t *testing.T) {
	for _, n := range []int{2, 5, 6, 81, 128} {
		for k := 1; k <= n; k++ {
			count := make([]int, k)
			last := 0
			for to := range n {
				s := serverOf(to, n, k)
				if s < last || s >= k {
					t.Fatalf("n=%d k=%d: node %d on server %d after %d", n, k, to, s, last)
				}
				last = s
				count[s]++
			}
			if slices.Min(count) == 0 || slices.Max(count)-slices.Min(count) > 1 {
				t.Fatalf("n=%d k=%d: nodes per server %v", n, k, count)
			}
		}
	}
	if serverOf(127, 128, 1) != 0 {
		t.Fatal("one server does not hold every proxy")
	}
}
