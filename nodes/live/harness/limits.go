package harness

import (
	"fmt"

	"github.com/electbench/electbench/nodes"
)

// Needs is what one live cluster takes of this host.
type Needs struct {
	Nodes   int
	Proxies int // one per directed link the run can use
	// FDs are the file descriptors the harness process holds for it: with
	// Toxiproxy embedded, three per proxy (its listener, and the two ends
	// of the one connection it relays), and five per node (its pipes, and
	// the listening socket it inherits, twice: kept.go), beside fdBase of
	// the harness's own.
	FDs int
}

// fdBase are the harness's own descriptors and some room.
const fdBase = 64

// NeedsFor is what n nodes of topology topo take. allLinks says that the
// run may use every link (faults, crashes, a heartbeat detector, forged
// identities: ringOnly); embedded that Toxiproxy runs in this process.
func NeedsFor(n int, topo nodes.Topology, allLinks, embedded bool) Needs {
	links := n * (n - 1)
	switch {
	case !topo.IsRing() || allLinks:
	case topo == nodes.RingBi && n > 2:
		links = 2 * n
	default:
		links = n
	}
	fds := fdBase + 5*n
	if embedded {
		fds += 3 * links
	}
	return Needs{Nodes: n, Proxies: links, FDs: fds}
}

// CheckHost reports, before anything starts, a cluster this process cannot
// hold under its file-descriptor limit (ulimit -n), saying what it needs,
// the ulimit -n that would do, and the largest cluster of that topology the
// present limit allows.
func CheckHost(n int, topo nodes.Topology, allLinks, embedded bool) error {
	limit, ok := fdLimit()
	if !ok {
		return nil
	}
	need := NeedsFor(n, topo, allLinks, embedded)
	if uint64(need.FDs) <= limit {
		return nil
	}
	most := 0
	for m := 2; m <= MaxNodes && uint64(NeedsFor(m, topo, allLinks, embedded).FDs) <= limit; m++ {
		most = m
	}
	return fmt.Errorf("%d nodes of a %s topology need %d proxies and about %d file descriptors in this process, over its limit of %d: "+
		"raise it (ulimit -n %d) or run at most %d nodes", n, topo, need.Proxies, need.FDs, limit, need.FDs, most)
}

// ringOnly says whether a ring run uses only its ring's links: with no
// fault, crash, heartbeat or forged identity a process only ever talks to
// its neighbours; otherwise it may reach any other (ring repair,
// heartbeats).
func ringOnly(topo nodes.Topology, crashes, faults int, heartbeat, forged bool) bool {
	return topo.IsRing() && crashes == 0 && faults == 0 && !heartbeat && !forged
}
