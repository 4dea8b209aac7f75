package harness

import (
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/electbench/electbench/internal/hostmem"
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
	// Memory is what the cluster takes of the host's memory, in bytes: the
	// nodes' (nodeBytes each, nodeLinkBytes per link) and Toxiproxy's
	// (proxyBytes per link, beside harnessBytes).
	Memory int64
	// perReceiver are the proxies into one node (each link's proxy is on
	// the server of its receiving node: serverOf); embedded, whether the
	// first server is in the harness process.
	perReceiver int
	embedded    bool
}

// fdBase are the harness's own descriptors and some room; a Toxiproxy
// server process's own too.
const fdBase = 64

// The measured costs of a live cluster (docs/LIVE-LIMITS.md: bully on
// complete graphs of 16, 32 and 64 nodes, Toxiproxy embedded, peak RSS
// sampled every 50 ms). A node process holds about 46 MB of its own (41
// then; its collector at GOGC 400 since, NodeGOGC) and 158 KB per
// directed link (its half of two connections, their buffers and
// goroutines); the harness about 40 MB of its own and 340 KB per
// proxy (Toxiproxy's listener, its two relayed connections and their
// stubs).
const (
	nodeBytes     = 46 << 20
	nodeLinkBytes = 158 << 10
	harnessBytes  = 40 << 20
	proxyBytes    = 340 << 10
)

// maxLinks are the most directed links one host was measured to bring up
// in one set-up: 4,032, a 64-node complete graph, linked in 13.7 s of
// its 94 s set-up bound. The set-up time grows faster than the links (×4.8
// from 240 to 992 links, ×9.8 from 992 to 4,032: every node dials every
// peer at once, and each handshake is checked on a host shared by all the
// processes), and the 128-node complete graph (16,256 links)
// brought up 307 in 3 min 51 s; beyond this figure a cluster needs more
// hosts, not a longer wait. A variable for tests (SetMaxLinks).
var maxLinks = 4032

// hostMemory is the memory this process may use (hostmem.Total); a
// variable for tests.
var hostMemory = hostmem.Total

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
	need.Memory = harnessBytes + int64(n)*nodeBytes + int64(need.Proxies)*(nodeLinkBytes+proxyBytes)
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
// refuses, saying why, a cluster that one host cannot link or hold
// (checkScale: links and memory, whatever the descriptors), and one that
// no split fits: one whose harness alone, or whose proxies into a single
// node, exceed the limit, or any that an external server (one process)
// cannot hold.
func Servers(n int, topo nodes.Topology, allLinks, embedded bool) (int, error) {
	need := NeedsFor(n, topo, allLinks, embedded)
	if err := checkScale(need, topo, allLinks, embedded); err != nil {
		return 0, err
	}
	limit, ok := fdLimit()
	if !ok {
		return 1, nil
	}
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
	most := mostNodes(topo, allLinks, embedded, func(need Needs) bool { return uint64(need.FDs) <= limit })
	return 0, fmt.Errorf("%d nodes of a %s topology need %d proxies and about %d file descriptors in this process, over its limit of %d: "+
		"raise it (ulimit -n %d) or run at most %d nodes", n, topo, need.Proxies, need.FDs, limit, need.FDs, most)
}

// checkScale refuses a cluster beyond what one host was measured to link
// (maxLinks) or whose processes need more memory than the host has
// (Needs.Memory over hostMemory), naming the figure and the way past it:
// more hosts or network namespaces, not a larger limit.
func checkScale(need Needs, topo nodes.Topology, allLinks, embedded bool) error {
	const past = "spread the cluster over network namespaces or hosts (--netns, multi-host: issue #43)"
	if need.Proxies > maxLinks {
		most := mostNodes(topo, allLinks, embedded, func(m Needs) bool { return m.Proxies <= maxLinks })
		return fmt.Errorf("%d nodes of a %s topology set up %d links at once (about %d file descriptors and %s of memory), more than the %d one host was measured to link (docs/LIVE-LIMITS.md): run at most %d nodes, or %s",
			need.Nodes, topo, need.Proxies, need.FDs, humanize.IBytes(uint64(need.Memory)), maxLinks, most, past)
	}
	if total, ok := hostMemory(); ok && need.Memory > total {
		most := mostNodes(topo, allLinks, embedded, func(m Needs) bool { return m.Memory <= total })
		return fmt.Errorf("%d nodes of a %s topology need about %s of memory (%d processes, %d links; docs/LIVE-LIMITS.md), more than this host's %s: run at most %d nodes, or %s",
			need.Nodes, topo, humanize.IBytes(uint64(need.Memory)), need.Nodes, need.Proxies, humanize.IBytes(uint64(total)), most, past)
	}
	return nil
}

// mostNodes is the largest cluster of topology topo, of at most
// live.Capabilities.MaxNodes, whose needs ok accepts, with every smaller
// one; 0 when not even two nodes fit.
func mostNodes(topo nodes.Topology, allLinks, embedded bool, ok func(Needs) bool) int {
	most := 0
	for m := 2; m <= live.Capabilities.MaxNodes && ok(NeedsFor(m, topo, allLinks, embedded)); m++ {
		most = m
	}
	return most
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

// CheckHosts reports, before anything starts, a cluster that hosts hosts
// (--netns) cannot hold, saying why; with hosts 0 it is CheckHost. Each
// host runs a Toxiproxy server holding the proxies into its block of
// nodes (serverOf), so the links set up at once (maxLinks) and the
// server's descriptors are each host's, the busiest's checked; the
// harness holds no proxy, only its five descriptors a node. Memory stays
// the machine's, which --netns hosts share.
func CheckHosts(n int, topo nodes.Topology, allLinks, embedded bool, hosts int) error {
	if hosts == 0 {
		return CheckHost(n, topo, allLinks, embedded)
	}
	need := NeedsFor(n, topo, allLinks, false)
	most, proxies := busiestHost(n, hosts, need.perReceiver)
	if proxies > maxLinks {
		more := hosts + 1
		for ; more < n; more++ {
			if _, p := busiestHost(n, more, need.perReceiver); p <= maxLinks {
				break
			}
		}
		return fmt.Errorf("%d nodes of a %s topology on %d hosts set up %d links at once into the %d nodes of the busiest host, more than the %d one host was measured to link (docs/LIVE-LIMITS.md): spread them over more hosts (--netns %d)",
			n, topo, hosts, proxies, most, maxLinks, more)
	}
	if total, ok := hostMemory(); ok && need.Memory > total {
		return fmt.Errorf("%d nodes of a %s topology need about %s of memory (%d processes, %d links; docs/LIVE-LIMITS.md), more than this machine's %s, which its --netns hosts share",
			n, topo, humanize.IBytes(uint64(need.Memory)), n, need.Proxies, humanize.IBytes(uint64(total)))
	}
	limit, ok := fdLimit()
	if !ok {
		return nil
	}
	if server := 3*proxies + fdBase; uint64(server) > limit {
		return fmt.Errorf("%d nodes of a %s topology on %d hosts need about %d file descriptors in the Toxiproxy server of the busiest host (%d proxies), over its limit of %d: raise it (ulimit -n) or spread them over more hosts",
			n, topo, hosts, server, proxies, limit)
	}
	if harness := 5*n + fdBase; uint64(harness) > limit {
		return fmt.Errorf("%d nodes need about %d file descriptors in the harness (five a node), over its limit of %d: raise it (ulimit -n)", n, harness, limit)
	}
	return nil
}

// hostLimits is a hostServers placement whose hosts' servers have
// limits on open files of their own, which this process's need not be
// (agents: each agent reports its host's).
type hostLimits interface {
	// serverLimit is host h's server's limit, if known.
	serverLimit(h int) (uint64, bool)
}

// checkServerLimits reports a cluster of n nodes on hosts hosts whose
// proxies into one host's nodes need more descriptors than that host's
// server may open (limit), naming the host: CheckHosts checks the
// busiest host against this process's limit, which on hosts of their own
// is another machine's.
func checkServerLimits(n int, topo nodes.Topology, allLinks bool, hosts int, limit func(h int) (uint64, bool)) error {
	per := NeedsFor(n, topo, allLinks, false).perReceiver
	count := make([]int, hosts)
	for to := range n {
		count[serverOf(to, n, hosts)]++
	}
	for h, k := range count {
		l, ok := limit(h)
		if server := 3*k*per + fdBase; ok && uint64(server) > l {
			return fmt.Errorf("%d nodes of a %s topology on %d hosts need about %d file descriptors in the Toxiproxy server of host %d (%d proxies), over the limit of %d its agent reported: raise it on that host (ulimit -n) or spread the nodes over more hosts",
				n, topo, hosts, server, h, k*per, l)
		}
	}
	return nil
}

// busiestHost is the most nodes of n one of hosts hosts holds (serverOf
// deals them in blocks) and the proxies into them, per into each.
func busiestHost(n, hosts, per int) (most, proxies int) {
	count := make([]int, hosts)
	for to := range n {
		h := serverOf(to, n, hosts)
		count[h]++
		most = max(most, count[h])
	}
	return most, most * per
}

// ringOnly says whether a ring run uses only its ring's links: with no
// fault (crashes are faults), heartbeat or forged identity a process only
// ever talks to its neighbours; otherwise it may reach any other (ring
// repair, heartbeats).
func ringOnly(topo nodes.Topology, faults int, heartbeat, forged bool) bool {
	return topo.IsRing() && faults == 0 && !heartbeat && !forged
}
