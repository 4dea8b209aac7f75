package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/trial"
)

// streamLinks seeds the per-link latency draws of a live trial.
const streamLinks = 0x11a4

// links are a trial's directed links, their proxies on the kept cluster
// (kept.go) and the toxics and cuts on them, and what each carried.
type links struct {
	n       int
	kept    *kept
	fail    func(format string, args ...any) // notes a failure as the trial's
	list    []link
	proxy   map[link]string // link → proxy name
	addrs   map[string]string
	latency map[link]time.Duration
	jitter  map[link]time.Duration
	// sent and recv count, by link (from*n+to), the machines' messages
	// written and delivered; lossy marks links that may lose messages.
	sent, recv []int64
	lossy      []bool
	anyLossy   bool
	cuts       map[link]int // partitions holding each link cut
	// upstream is, by proxy name, where the harness last pointed each
	// proxy of the trial (its process's address; a restarted one's new
	// address once rewired): what readBack expects to find.
	upstream map[string]string
	// infra is the infrastructure fault found during the trial (readBack,
	// link set-up that did not complete, or a Toxiproxy call that failed):
	// the trial's failure is then not the algorithm's (Runtime.Run).
	infra error
	// touched says a fault of the trial called Toxiproxy on a proxy
	// (toxic): a trial with none leaves the proxies as it found them.
	touched bool
	// after are the trial's proxies as Runtime.verify read them back once
	// it ran (an external server), where the cluster's reset starts.
	after map[string]toxi.State
}

func newLinks(n int, k *kept, fail func(format string, args ...any)) *links {
	return &links{n: n, kept: k, fail: fail, proxy: map[link]string{}, latency: map[link]time.Duration{}, jitter: map[link]time.Duration{},
		upstream: map[string]string{}, cuts: map[link]int{}, sent: make([]int64, n*n), recv: make([]int64, n*n), lossy: make([]bool, n*n)}
}

// linkPlan is what make needs to know of the trial: which links its
// topology uses, between which processes, with which latency.
type linkPlan struct {
	topo     nodes.Topology
	ringOnly bool   // only the ring's own links (limits.go's ringOnly)
	alive    []bool // by position
	idx      []int  // spawn index by position
	latency  trial.Latency
	seed     uint64
	embedded bool // the first Toxiproxy server is this process's
}

// make gives every directed link the run can use a proxy of the
// runtime's kept cluster (kept.go), created if the cluster has none for its
// processes yet, and sets every link's latency. Rings with no fault use
// only their own links; otherwise a process may reach any other (ring
// repair, heartbeats, complete topologies). What it acquired goes to info.
func (ls *links) make(ctx context.Context, plan linkPlan, prog *setupProgress, info *Info) error {
	n, topo, k := ls.n, plan.topo, ls.kept
	var pairs []link // the spawn indices of each link's ends
	for i := range n {
		for j := range n {
			if i == j || !plan.alive[i] || !plan.alive[j] {
				continue
			}
			if plan.ringOnly && !topo.Linked(i, j, n) {
				continue
			}
			ls.list = append(ls.list, link{i, j})
			pairs = append(pairs, link{plan.idx[i], plan.idx[j]})
		}
	}
	made := 0
	for _, p := range pairs {
		if _, ok := k.proxy[p]; !ok {
			made++
		}
	}
	prog.proxies(made, len(pairs)-made)
	prog.stage(Proxying, 0, len(pairs))
	budget := NeedsFor(n, topo, !plan.ringOnly, plan.embedded).Proxies
	if err := k.ensure(ctx, pairs, budget); err != nil {
		ls.list = nil
		if !plan.embedded && !errors.Is(err, toxi.ErrUnreachable) && ctx.Err() == nil {
			// An external server is one process, which the harness cannot
			// split: its own limit may be what failed.
			return fmt.Errorf("%w (the --toxiproxy server holds all %d proxies of this cluster, about %d file descriptors: its ulimit -n must allow them)",
				err, budget, fdBase+3*budget)
		}
		return err
	}
	for i, l := range ls.list {
		name := k.proxy[pairs[i]]
		ls.proxy[l] = name
		ls.upstream[name] = k.addrs[pairs[i][1]]
		info.Proxies = append(info.Proxies, name)
		info.ProxyAddrs = append(info.ProxyAddrs, k.listen[name])
	}
	ls.addrs = k.listen
	info.Prefix = k.prefix
	// Per-link latency from our seed; jitter, if any, is Toxiproxy's. A
	// proxy that holds it from an earlier trial is not asked again.
	src := rand.New(rand.NewPCG(plan.seed, streamLinks))
	var change []link // the links whose proxy holds another latency
	for _, l := range ls.list {
		ls.latency[l], ls.jitter[l] = linkLatency(plan.latency, src)
		if k.latency[ls.proxy[l]] != [2]time.Duration{ls.latency[l], ls.jitter[l]} {
			change = append(change, l)
		}
	}
	var mu sync.Mutex
	err := ls.parallel(ctx, change, func(ctx context.Context, l link) error {
		name, want := ls.proxy[l], [2]time.Duration{ls.latency[l], ls.jitter[l]}
		var err error
		if want == ([2]time.Duration{}) {
			err = k.on(name).RemoveToxic(ctx, name, toxi.LatencyToxic)
		} else {
			err = k.on(name).SetLatency(ctx, name, want[0], want[1])
		}
		if err != nil {
			return err
		}
		mu.Lock()
		k.latency[name] = want
		mu.Unlock()
		return nil
	})
	// A call that failed may have changed its proxy all the same: the
	// cluster's reset reads them back.
	ls.touched = ls.touched || err != nil
	if err == nil && !plan.embedded {
		_, err = ls.readBack(ctx)
	}
	if err == nil {
		prog.progress(len(pairs))
	}
	return err
}

// readBack checks, on an external Toxiproxy, that every proxy of the
// trial exists and forwards where the harness last pointed it: before the
// trial, and again once it has run (Runtime.verify), since a proxy may be
// repointed, or the server restarted empty, while the trial runs. Its API
// is unauthenticated: anyone can repoint a proxy at another node's
// listener, which would make an honest dialer refuse the identity it
// meets there. A proxy the harness did not configure is an
// infrastructure error naming it (ls.infra): no trial runs on it, and a
// trial that ran on it is no result. It returns what it read.
func (ls *links) readBack(ctx context.Context) (map[string]toxi.State, error) {
	states, err := ls.kept.states(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range ls.list {
		name := ls.proxy[l]
		want := ls.upstream[name]
		if st, ok := states[name]; !ok {
			ls.infra = fmt.Errorf("proxy %s, which the harness made to forward to %s, is gone: the --toxiproxy server was restarted or reconfigured by someone else, and no trial runs on it",
				name, want)
			return nil, ls.infra
		} else if st.Upstream != want {
			ls.infra = fmt.Errorf("proxy %s forwards to %q, not to %s where the harness pointed it: the --toxiproxy server was reconfigured by someone else, and no trial runs on it",
				name, st.Upstream, want)
			return nil, ls.infra
		}
	}
	return states, nil
}

// on is link l's proxy: the server holding it and its name.
func (ls *links) on(l link) (*toxi.Client, string) {
	name := ls.proxy[l]
	return ls.kept.on(name), name
}

// linkLatency draws one link's latency from the model with our source:
// constant T; normal: its mean, with its deviation as Toxiproxy's jitter;
// otherwise one sample per link. Toxiproxy works in whole milliseconds.
func linkLatency(l trial.Latency, src *rand.Rand) (lat, jitter time.Duration) {
	round := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	switch m := l.(type) {
	case trial.Constant:
		return round(m.Mean()), 0
	case trial.Normal:
		return round(m.MeanD), round(m.SD)
	}
	return round(l.Sample(src)), 0
}

// outgoing are position p's links, with the addresses of their proxies,
// as its configuration lists them.
func (ls *links) outgoing(p int) []live.Link {
	var out []live.Link
	for _, l := range ls.list {
		if l[0] == p {
			out = append(out, live.Link{To: l[1], Addr: ls.addrs[ls.proxy[l]]})
		}
	}
	return out
}

// parallel runs f over links on two goroutines (parallel) per server
// holding their proxies, the servers at once.
func (ls *links) parallel(ctx context.Context, links []link, f func(context.Context, link) error) error {
	k := ls.kept
	groups := make([][]link, len(k.servers))
	for _, l := range links {
		c, _ := ls.on(l)
		s := slices.Index(k.servers, c)
		groups[s] = append(groups[s], l)
	}
	return onEach(k.servers, func(s int, _ *toxi.Client) error { return parallel(ctx, groups[s], f) })
}

// toxic applies f to links, noting a failure as the trial's. A
// Toxiproxy call that failed is the infrastructure's fault, not the
// algorithm's: the link was not what the trial's faults said (ls.infra).
func (ls *links) toxic(ctx context.Context, what string, links []link, f func(context.Context, link) error) {
	ls.touched = ls.touched || len(links) > 0
	if err := ls.parallel(ctx, links, f); err != nil {
		ls.fail("%s: %v", what, err)
		if ls.infra == nil {
			ls.infra = fmt.Errorf("%s: %w", what, err)
		}
	}
}

// rewire points the proxies into position p at its new process's address
// and forgets what was lost with the old one; it returns those links.
func (ls *links) rewire(ctx context.Context, p int, addr string) []link {
	var into []link
	for _, l := range ls.list {
		if l[1] == p {
			into = append(into, l)
			ls.upstream[ls.proxy[l]] = addr
		}
	}
	ls.toxic(ctx, "rewire", into, func(ctx context.Context, l link) error {
		c, name := ls.on(l)
		return c.SetUpstream(ctx, name, addr)
	})
	n := ls.n
	for i := range n {
		ls.recv[i*n+p] = ls.sent[i*n+p]
	}
	return into
}

// markLossy marks links that may lose the messages written to them.
func (ls *links) markLossy(links []link) {
	for _, l := range links {
		ls.lossy[l[0]*ls.n+l[1]] = true
	}
}

// cut disables the proxies of links not cut already, so that every
// connection fails and nothing is carried until uncut.
func (ls *links) cut(ctx context.Context, what string, links []link) {
	var toCut []link
	for _, k := range links {
		if ls.cuts[k]++; ls.cuts[k] == 1 {
			toCut = append(toCut, k)
		}
	}
	ls.toxic(ctx, what, toCut, func(ctx context.Context, k link) error {
		c, name := ls.on(k)
		return c.SetEnabled(ctx, name, false)
	})
}

// uncut enables the proxies of links no other cut holds, and returns them.
func (ls *links) uncut(ctx context.Context, what string, links []link) []link {
	var heal []link
	for _, k := range links {
		if ls.cuts[k]--; ls.cuts[k] == 0 {
			heal = append(heal, k)
		}
	}
	ls.toxic(ctx, what, heal, func(ctx context.Context, k link) error {
		c, name := ls.on(k)
		return c.SetEnabled(ctx, name, true)
	})
	return heal
}

// addToxic puts toxic t on the proxies of links.
func (ls *links) addToxic(ctx context.Context, t toxic, links []link) {
	ls.toxic(ctx, t.typ, links, func(ctx context.Context, k link) error {
		c, name := ls.on(k)
		return c.AddToxic(ctx, name, t.name, t.typ, t.attrs)
	})
}

// removeToxic takes toxic t off the proxies of links.
func (ls *links) removeToxic(ctx context.Context, t toxic, links []link) {
	ls.toxic(ctx, "heal "+t.typ, links, func(ctx context.Context, k link) error {
		c, name := ls.on(k)
		return c.RemoveToxic(ctx, name, t.name)
	})
}

// toxic is a Toxiproxy toxic as the harness adds it to the proxy of a
// link a→b, which a dials: upstream, on every connection.
type toxic struct {
	name  string
	typ   string           // Toxiproxy's type: latency, bandwidth, slicer, limit_data, timeout, reset_peer, slow_close
	attrs map[string]int64 // in Toxiproxy's units: ms, KB/s, µs, bytes
}
