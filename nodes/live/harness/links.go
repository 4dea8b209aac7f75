package harness

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/electbench/electbench/chaos/toxi"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// streamLinks seeds the per-link latency draws of a live trial.
const streamLinks = 0x11a4

type link = [2]int // (from, to)

// links are a trial's directed links, their proxies, and what each
// carried.
type links struct {
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
}

func newLinks(n int) links {
	return links{proxy: map[link]string{}, latency: map[link]time.Duration{}, jitter: map[link]time.Duration{},
		cuts: map[link]int{}, sent: make([]int64, n*n), recv: make([]int64, n*n), lossy: make([]bool, n*n)}
}

// makeLinks creates a proxy per directed link the run can use and sets
// every link's latency. Rings with no fault use only their own links;
// otherwise a process may reach any other (ring repair, heartbeats,
// complete topologies).
func (lt *liveTrial) makeLinks(ctx context.Context) error {
	n, topo, ls := lt.n, lt.cfg.Algorithm.Topology, &lt.links
	ringOnly := ringOnly(topo, len(lt.cfg.Crashes), len(lt.cfg.Faults), lt.det.Kind == "heartbeat", len(lt.r.opt.Forge) > 0)
	var specs []toxi.Link
	for i := range n {
		for j := range n {
			if i == j || !lt.alive[i] || !lt.alive[j] {
				continue
			}
			if ringOnly && j != (i+1)%n && (topo != nodes.RingBi || j != (i+n-1)%n) {
				continue
			}
			l := link{i, j}
			name := lt.prefix + strconv.Itoa(i) + "-" + strconv.Itoa(j)
			ls.list = append(ls.list, l)
			ls.proxy[l] = name
			specs = append(specs, toxi.Link{Name: name, Upstream: lt.procs.byPos[j].addr})
			lt.res.Info.Proxies = append(lt.res.Info.Proxies, name)
		}
	}
	addrs, err := lt.r.client.Create(ctx, specs)
	if err != nil {
		ls.list, ls.proxy = nil, map[link]string{}
		lt.res.Info.Proxies = nil
		return err
	}
	for _, name := range lt.res.Info.Proxies {
		lt.res.Info.ProxyAddrs = append(lt.res.Info.ProxyAddrs, addrs[name])
	}
	ls.addrs = addrs
	// Per-link latency from our seed; jitter, if any, is Toxiproxy's.
	src := rand.New(rand.NewPCG(lt.cfg.Seed, streamLinks))
	for _, l := range ls.list {
		ls.latency[l], ls.jitter[l] = linkLatency(lt.cfg.Latency, src)
	}
	return lt.parallel(ctx, ls.list, func(ctx context.Context, l link) error {
		if ls.latency[l] == 0 && ls.jitter[l] == 0 {
			return nil
		}
		return lt.r.client.SetLatency(ctx, ls.proxy[l], ls.latency[l], ls.jitter[l])
	})
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

// parallel runs f over links on two goroutines: a large cluster has
// thousands of links and each toxic is one API call. Two, because the HTTP
// client keeps two idle connections to a server: more callers would dial
// new ones and close them again, call after call.
func (lt *liveTrial) parallel(ctx context.Context, links []link, f func(context.Context, link) error) error {
	const workers = 2
	ch := make(chan link)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for l := range ch {
				if first == nil {
					first = f(ctx, l)
				}
			}
			errs <- first
		}()
	}
	for _, l := range links {
		ch <- l
	}
	close(ch)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// toxic applies f to links, noting a failure as the trial's.
func (lt *liveTrial) toxic(ctx context.Context, what string, links []link, f func(context.Context, link) error) {
	if err := lt.parallel(ctx, links, f); err != nil {
		lt.fail("%s: %v", what, err)
	}
}

// rewire points the proxies into a restarted process at its new address,
// forgets what was lost with the old one, and configures it.
func (lt *liveTrial) rewire(p *proc) {
	ctx, cancel := context.WithTimeout(context.Background(), lt.setupTimeout())
	defer cancel()
	var into []link
	for _, l := range lt.links.list {
		if l[1] == p.pos {
			into = append(into, l)
		}
	}
	lt.toxic(ctx, "rewire", into, func(ctx context.Context, l link) error {
		return lt.r.client.SetUpstream(ctx, lt.links.proxy[l], p.addr)
	})
	n := lt.n
	for i := range n {
		lt.links.recv[i*n+p.pos] = lt.links.sent[i*n+p.pos]
	}
	lt.armed[p.pos], lt.expect[p.pos] = 0, 0
	lt.recount()
	lt.configure(p)
}

// removeTimeout bounds the removal of a trial's proxies, all of them;
// removeHealthTimeout the health check before it.
const (
	removeTimeout       = 15 * time.Second
	removeHealthTimeout = time.Second
)

// removeProxies deletes every proxy of the trial, in parallel, with a
// context of its own: the run's may be cancelled (Ctrl-C), and the proxies
// must go all the same. A server found down is not waited for (toxi's
// Delete fails at once): what it keeps, named with the run's prefix, the
// next run against it removes (RemoveLeftovers).
func (lt *liveTrial) removeProxies() {
	if len(lt.links.list) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	// A health check first: a server that stopped answering costs one
	// short wait here, not a call's timeout, so an interrupted run ends
	// at once; what it keeps is removed once it answers (leftovers).
	// The trial's own result stands: its proxies are no part of it.
	if err := lt.r.client.Check(ctx, removeHealthTimeout); err != nil {
		lt.logf("removing proxies of %s later: %v", lt.prefix, err)
		return
	}
	names := make([]string, 0, len(lt.links.list))
	for _, l := range lt.links.list {
		names = append(names, lt.links.proxy[l])
	}
	if err := lt.r.client.Delete(ctx, names...); err != nil {
		lt.fail("removing proxies: %v", err)
	}
}

// linkBusy reports whether link k (from*n+to) holds messages that will
// still be delivered.
func (lt *liveTrial) linkBusy(k int) bool {
	return !lt.gone[k%lt.n] && !lt.links.lossy[k] && lt.links.sent[k] != lt.links.recv[k]
}

// count applies change to link k's counts, keeping unsettledLinks right.
func (lt *liveTrial) count(k int, change func()) {
	if lt.linkBusy(k) {
		lt.unsettledLinks--
	}
	change()
	if lt.linkBusy(k) {
		lt.unsettledLinks++
	}
}
