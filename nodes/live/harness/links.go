package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/electbench/electbench/chaos/toxi"
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

// makeLinks gives every directed link the run can use a proxy of the
// runtime's kept cluster (kept.go), created if the cluster has none for its
// processes yet, and sets every link's latency. Rings with no fault use
// only their own links; otherwise a process may reach any other (ring
// repair, heartbeats, complete topologies).
func (lt *liveTrial) makeLinks(ctx context.Context) error {
	n, topo, ls, k := lt.n, lt.cfg.Algorithm.Topology, &lt.links, lt.r.kept
	ringOnly := ringOnly(topo, len(lt.cfg.Faults), lt.det.Kind == "heartbeat", len(lt.r.opt.Forge) > 0)
	var pairs []link // the spawn indices of each link's ends
	for i := range n {
		for j := range n {
			if i == j || !lt.alive[i] || !lt.alive[j] {
				continue
			}
			if ringOnly && !topo.Linked(i, j, n) {
				continue
			}
			ls.list = append(ls.list, link{i, j})
			pairs = append(pairs, link{lt.procs.byPos[i].idx, lt.procs.byPos[j].idx})
		}
	}
	made := 0
	for _, p := range pairs {
		if _, ok := k.proxy[p]; !ok {
			made++
		}
	}
	lt.prog.proxies(made, len(pairs)-made)
	lt.prog.stage(Proxying, 0, len(pairs))
	budget := NeedsFor(n, topo, !ringOnly, lt.r.srv.embedded != nil).Proxies
	if err := k.ensure(ctx, pairs, budget); err != nil {
		ls.list = nil
		if lt.r.srv.embedded == nil && !errors.Is(err, toxi.ErrUnreachable) && ctx.Err() == nil {
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
		lt.res.Info.Proxies = append(lt.res.Info.Proxies, name)
		lt.res.Info.ProxyAddrs = append(lt.res.Info.ProxyAddrs, k.listen[name])
	}
	ls.addrs = k.listen
	lt.res.Info.Prefix = k.prefix
	// Per-link latency from our seed; jitter, if any, is Toxiproxy's. A
	// proxy that holds it from an earlier trial is not asked again.
	src := rand.New(rand.NewPCG(lt.cfg.Seed, streamLinks))
	for _, l := range ls.list {
		ls.latency[l], ls.jitter[l] = linkLatency(lt.cfg.Latency, src)
	}
	var mu sync.Mutex
	err := lt.parallel(ctx, ls.list, func(ctx context.Context, l link) error {
		name, want := ls.proxy[l], [2]time.Duration{ls.latency[l], ls.jitter[l]}
		mu.Lock()
		have := k.latency[name]
		mu.Unlock()
		if have == want {
			return nil
		}
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
	if err == nil {
		lt.prog.progress(len(pairs))
	}
	return err
}

// proxy is link l's proxy: the server holding it and its name.
func (lt *liveTrial) proxy(l link) (*toxi.Client, string) {
	name := lt.links.proxy[l]
	return lt.r.kept.on(name), name
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
func (lt *liveTrial) parallel(ctx context.Context, links []link, f func(context.Context, link) error) error {
	k := lt.r.kept
	groups := make([][]link, len(k.servers))
	for _, l := range links {
		c, _ := lt.proxy(l)
		s := slices.Index(k.servers, c)
		groups[s] = append(groups[s], l)
	}
	return onEach(k.servers, func(s int, _ *toxi.Client) error { return parallel(ctx, groups[s], f) })
}

// parallel runs f over items on two goroutines, returning the first
// error: a large cluster has thousands of links and each toxic is one API
// call. Two, because the HTTP client keeps two idle connections to a
// server: more callers would dial new ones and close them again, call
// after call.
func parallel[T any](ctx context.Context, items []T, f func(context.Context, T) error) error {
	const workers = 2
	ch := make(chan T)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var first error
			for it := range ch {
				if first == nil {
					first = f(ctx, it)
				}
			}
			errs <- first
		}()
	}
	for _, it := range items {
		ch <- it
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
		c, name := lt.proxy(l)
		return c.SetUpstream(ctx, name, p.addr)
	})
	n := lt.n
	for i := range n {
		lt.links.recv[i*n+p.pos] = lt.links.sent[i*n+p.pos]
	}
	lt.armed[p.pos], lt.expect[p.pos] = 0, 0
	lt.recount()
	lt.configure(p)
	lt.redial(into)
}

// redial tells the live senders of links that can carry messages again
// (a healed cut, proxies rewired to a restarted process) to dial them at
// once: a node's dialer waits up to 100 ms between attempts on a link that
// is down, and a cut of 30T healed at T = 1 ms would otherwise last until
// the next attempt, two or three times as long.
func (lt *liveTrial) redial(links []link) {
	told := map[int]bool{}
	for _, k := range links {
		if from := k[0]; !told[from] && lt.alive[from] {
			told[from] = true
			lt.send(lt.procs.byPos[from], live.Command{Type: "redial"})
		}
	}
}

// removeTimeout bounds the removal of a cluster's proxies, all of them,
// and its reset; removeHealthTimeout the health check before a removal.
const (
	removeTimeout       = 15 * time.Second
	removeHealthTimeout = time.Second
)

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
