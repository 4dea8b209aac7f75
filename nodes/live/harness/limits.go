package harness

import (
	"fmt"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
)

// Needs is what one live cluster takes of this host.
type Needs struct {
	Nodes   int
	Proxies int // one per directed link the run can use
	// FDs are the file descriptors the harness process holds for it with
	// every proxy on one server: with Toxiproxy embedded, three per proxy
	// (its listener, and the two ends of the one connection it relays),
	// and five per node (its pipes, and the listening socket it inherits,
	// twice: kept.go), beside fdBase of the harness's own.
	FDs int
	// perReceiver are the proxies into one node (each link's proxy is on
	// the server of its receiving node: serverOf); embedded, whether the
	// first server is in the harness process.
	perReceiver int
	embedded    bool
}

// fdBase are the harness's own descriptors and some room; a Toxiproxy
// server process's own too.
const fdBase = 64

// NeedsFor is what n nodes of topology topo take. allLinks says that the
// run may use every link (faults, crashes, a heartbeat detector, forged
// identities: ringOnly); embedded that Toxiproxy runs in this process.
func NeedsFor(n int, topo nodes.Topology, allLinks, embedded bool) Needs {
	per := topo.Degree(n)
	if allLinks {
		per = n - 1
	}
	need := Needs{Nodes: n, Proxies: n * per, perReceiver: per, embedded: embedded}
	need.FDs = need.Shares(1)[0]
	return need
}

// Shares are the file descriptors each process holding one of k Toxiproxy
// servers takes when the cluster's proxies are split over them by
// receiving node (serverOf): the harness's first, with the embedded
// server's share (with an external server, only the harness's own), then
// those of the k−1 server processes.
func (need Needs) Shares(k int) []int {
	out := make([]int, k)
	for to := range need.Nodes {
		out[serverOf(to, need.Nodes, k)] += 3 * need.perReceiver
	}
	for s := range out {
		out[s] += fdBase
	}
	if !need.embedded {
		out[0] = fdBase
	}
	out[0] += 5 * need.Nodes
	return out
}

// serverOf is the server, of k, holding the proxies into the node of spawn
// index to, of n: the nodes are dealt out in contiguous blocks, so that
// each server holds the proxies into about n/k nodes. (docs/multi-host.md
// puts a link's proxy on its receiver's host likewise.)
func serverOf(to, n, k int) int { return to * k / n }

// splitRoom is the share of a process's limit a split leaves free (1/8):
// connections a restart or a reconnection replaces are open beside their
// successors for a while.
const splitRoom = 8

// Servers returns how many Toxiproxy servers a cluster of n nodes of
// topology topo takes under this process's file-descriptor limit (ulimit
// -n; each server process inherits it): one when one process can hold
// every proxy, as always; otherwise, with Toxiproxy embedded, the least
// number whose shares (Needs.Shares) each fit the limit with room, the
// servers beyond the embedded one being processes of their own. It
// refuses, saying why, a cluster that no split fits: one whose harness
// alone, or whose proxies into a single node, exceed the limit, or any that
// an external server (one process) cannot hold.
func Servers(n int, topo nodes.Topology, allLinks, embedded bool) (int, error) {
	limit, ok := fdLimit()
	if !ok {
		return 1, nil
	}
	need := NeedsFor(n, topo, allLinks, embedded)
	if uint64(need.FDs) <= limit {
		return 1, nil
	}
	room := limit - limit/splitRoom
	if embedded {
		for k := 2; k <= n; k++ {
			if fits(need.Shares(k), room) {
				return k, nil
			}
		}
		return 0, fmt.Errorf("%d nodes of a %s topology need %d proxies, and about %d file descriptors in the harness (%d of its own, %d for the proxies into the first node) even split over %d Toxiproxy processes, over its limit of %d: raise it (ulimit -n)",
			n, topo, need.Proxies, need.Shares(n)[0], fdBase+5*n, 3*need.perReceiver, n, limit)
	}
	most := 0
	for m := 2; m <= live.Capabilities.MaxNodes && uint64(NeedsFor(m, topo, allLinks, embedded).FDs) <= limit; m++ {
		most = m
	}
	return 0, fmt.Errorf("%d nodes of a %s topology need %d proxies and about %d file descriptors in this process, over its limit of %d: "+
		"raise it (ulimit -n %d) or run at most %d nodes", n, topo, need.Proxies, need.FDs, limit, need.FDs, most)
}

func fits(shares []int, limit uint64) bool {
	for _, s := range shares {
		if uint64(s) > limit {
			return false
		}
	}
	return true
}

// CheckHost reports, before anything starts, a cluster this host cannot
// hold (Servers), saying why.
func CheckHost(n int, topo nodes.Topology, allLinks, embedded bool) error {
	_, err := Servers(n, topo, allLinks, embedded)
	return err
}

// ringOnly says whether a ring run uses only its ring's links: with no
// fault (crashes are faults), heartbeat or forged identity a process only
// ever talks to its neighbours; otherwise it may reach any other (ring
// repair, heartbeats).
func ringOnly(topo nodes.Topology, faults int, heartbeat, forged bool) bool {
	return topo.IsRing() && faults == 0 && !heartbeat && !forged
}
