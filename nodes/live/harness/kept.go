package harness

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// kept is what a Runtime keeps of a live cluster across the trials of one
// size, so that a trial does not pay for thousands of proxies (a complete
// graph of 64 nodes has 4,032): a listening socket per spawn index, held
// by the harness and inherited by the node process of that index in every
// trial (`electbench node --listen-fd`), and the proxies between those
// sockets, created when a trial first needs them. A link between positions
// i and j of a trial goes through the proxy of the spawn indices holding
// them, whose upstream is the listening socket of j's process, whoever it
// is in this trial.
//
// After each trial reset puts every proxy back as created — enabled, its
// upstream on its socket, no toxic but its latency — and checks that it
// did, and that no connection through any proxy or into any socket is
// left (unaccepted ones are drained) unless the trial's node processes
// are kept with their links for the next (warm.go). A cluster that cannot be reset, or
// whose trial was interrupted or lost Toxiproxy, is removed (dropKept):
// the next trial makes a new one.
// Reuse is an optimisation; a trial sees the same links as on a new
// cluster.
type kept struct {
	n      int
	prefix string
	lns    []*net.TCPListener // by spawn index
	files  []*os.File         // their copies, inherited by the nodes
	addrs  []string           // their addresses
	proxy  map[link]string    // by (spawn index, spawn index)
	listen map[string]string  // proxy name → its listen address
	// servers are the Toxiproxy servers holding the proxies, the proxy of
	// (i, j) on servers[serverOf(j, n, len(servers))]; at finds a proxy's
	// by its name.
	servers []*toxi.Client
	at      map[string]*toxi.Client
	// latency is the latency toxic set on each proxy: reset leaves it, and
	// a trial of the same latency model sets nothing.
	latency map[string][2]time.Duration
	// hosts are where its nodes run.
	hosts onHosts
	// warm is the node processes kept with their links for the next
	// trial (warm.go), or nil.
	warm *warm
}

// listenAll opens the listening socket of every spawn index, unless the
// cluster's hosts open a socket for each process they start (a
// remoteStarter): its proxies are then pointed at each trial's (repoint).
func (k *kept) listenAll() error {
	n := k.n
	if _, ok := k.hosts.placement.(remoteStarter); ok {
		k.addrs = make([]string, n)
		return nil
	}
	for range n {
		ln, err := k.hosts.listen(len(k.lns), n)
		if err != nil {
			k.closeListeners()
			return fmt.Errorf("listening for node %d: %w", len(k.lns), err)
		}
		f, err := ln.File()
		if err != nil {
			ln.Close()
			k.closeListeners()
			return fmt.Errorf("listening for node %d: %w", len(k.lns), err)
		}
		k.lns, k.files, k.addrs = append(k.lns, ln), append(k.files, f), append(k.addrs, ln.Addr().String())
	}
	return nil
}

// repoint points the proxies into each spawn index at the socket its
// process listens on, where the hosts open one per process (a
// remoteStarter): through an agent the cluster holds no socket to keep
// across trials, so each trial's processes bring new addresses.
func (k *kept) repoint(ctx context.Context, all []*proc) error {
	if _, ok := k.hosts.placement.(remoteStarter); !ok {
		return nil
	}
	moved := map[int]bool{}
	for _, p := range all {
		if k.addrs[p.idx] != p.addr {
			k.addrs[p.idx], moved[p.idx] = p.addr, true
		}
	}
	var into []link
	for l := range k.proxy {
		if moved[l[1]] {
			into = append(into, l)
		}
	}
	return parallel(ctx, into, func(ctx context.Context, l link) error {
		name := k.proxy[l]
		return k.on(name).SetUpstream(ctx, name, k.addrs[l[1]])
	})
}

// placed is where the cluster's nodes run: on loopback without a cluster
// (a trial of the harness's own tests, with no processes behind it).
func (k *kept) placed() onHosts {
	if k == nil {
		return onHosts{placement: loopback{}}
	}
	return k.hosts
}

func (k *kept) closeListeners() {
	if k == nil {
		return
	}
	for i := range k.lns {
		k.lns[i].Close()
		k.files[i].Close()
	}
	k.lns, k.files = nil, nil
}

// byServer groups proxy names by the server holding them.
func (k *kept) byServer(names []string) [][]string {
	out := make([][]string, len(k.servers))
	for _, name := range names {
		i := slices.Index(k.servers, k.at[name])
		out[i] = append(out[i], name)
	}
	return out
}

// names are the cluster's proxies.
func (k *kept) names() []string {
	out := make([]string, 0, len(k.proxy))
	for _, name := range k.proxy {
		out = append(out, name)
	}
	return out
}

// on is the server holding proxy name.
func (k *kept) on(name string) *toxi.Client { return k.at[name] }

// delete removes the proxies named, each from its server, the servers at
// once.
func (k *kept) delete(ctx context.Context, names []string) error {
	groups := k.byServer(names)
	return onEach(k.servers, func(i int, c *toxi.Client) error {
		if len(groups[i]) == 0 {
			return nil
		}
		return c.Delete(ctx, groups[i]...)
	})
}

// states returns the cluster's proxies as their servers hold them.
func (k *kept) states(ctx context.Context) (map[string]toxi.State, error) {
	all := make([]map[string]toxi.State, len(k.servers))
	err := onEach(k.servers, func(i int, c *toxi.Client) (err error) {
		all[i], err = c.States(ctx, k.prefix)
		return err
	})
	out := map[string]toxi.State{}
	for _, m := range all {
		maps.Copy(out, m)
	}
	return out, err
}

// ensure gives every pair of spawn indices a proxy, creating those
// missing in parallel batches (toxi.Client.Create). The cluster holds at
// most budget proxies (what the host check allowed for): a ring run whose
// positions fall to other indices than the last one's first removes the
// proxies it does not need.
func (k *kept) ensure(ctx context.Context, pairs []link, budget int) error {
	var (
		missing []toxi.Link
		made    []link // the pairs of missing
	)
	want := make(map[link]bool, len(pairs))
	for _, p := range pairs {
		want[p] = true
		if _, ok := k.proxy[p]; !ok {
			missing = append(missing, toxi.Link{Name: k.prefix + strconv.Itoa(p[0]) + "-" + strconv.Itoa(p[1]), Upstream: k.addrs[p[1]], Host: k.hosts.proxyHost(p[1])})
			made = append(made, p)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(k.proxy)+len(missing) > budget {
		var spare []string
		for p, name := range k.proxy {
			if !want[p] {
				spare = append(spare, name)
				delete(k.proxy, p)
				delete(k.listen, name)
				delete(k.latency, name)
			}
		}
		if err := k.delete(ctx, spare); err != nil {
			return err
		}
		for _, name := range spare {
			delete(k.at, name)
		}
	}
	// Each server creates the proxies into its nodes, one server after
	// another: creating a proxy costs its server CPU (and the kernel, a
	// port), and several servers populating at once on a small host
	// starve each other's calls past their deadline.
	groups := make([][]toxi.Link, len(k.servers))
	for i, l := range missing {
		s := serverOf(made[i][1], k.n, len(k.servers))
		groups[s] = append(groups[s], l)
	}
	addrs := make([]map[string]string, len(k.servers))
	var err error
	for s, c := range k.servers {
		if len(groups[s]) > 0 {
			if addrs[s], err = c.Create(ctx, groups[s]); err != nil {
				break
			}
		}
	}
	// What a server made is kept even when another failed: it is the
	// cluster's, removed with it.
	for i, l := range missing {
		s := serverOf(made[i][1], k.n, len(k.servers))
		if addrs[s] == nil {
			continue
		}
		k.proxy[made[i]] = l.Name
		k.listen[l.Name] = addrs[s][l.Name]
		k.at[l.Name] = k.servers[s]
	}
	return err
}

// resetWait bounds how long reset waits for the connections of a trial's
// processes, all killed, to close.
const resetWait = 3 * time.Second

// reset puts the cluster back as created after a trial, and checks it:
// every proxy enabled, upstream on its socket, no toxic but the latency it
// was given (restore), and, when the trial's processes are all gone, no
// connection left through a proxy or into a socket (kept processes, warm,
// hold theirs). states are the proxies as read once the trial ran, if
// they were (nil: reset reads them, one call per server); unchanged says
// the trial changed no proxy on a server only this process drives, and
// nothing is read or fixed. An error says what was found; the caller
// then drops the cluster.
func (k *kept) reset(ctx context.Context, states map[string]toxi.State, unchanged bool) error {
	// The run's context: an interrupted reset fails, and the caller
	// drops the cluster, which gives its removal a context of its own.
	ctx, cancel := context.WithTimeout(ctx, removeTimeout)
	defer cancel()
	if !unchanged {
		if err := k.restore(ctx, states); err != nil {
			return err
		}
	}
	if k.warm != nil {
		// The kept processes hold their connections through the
		// proxies, and accept on the sockets themselves.
		return nil
	}
	return k.quiet(ctx)
}

// restore puts every proxy back as created, starting from states (read
// now if nil), and checks it reads back so: the fixes of each server run
// on two goroutines (parallel), the servers at once.
func (k *kept) restore(ctx context.Context, states map[string]toxi.State) error {
	var err error
	if states == nil {
		if states, err = k.states(ctx); err != nil {
			return err
		}
	}
	// The fixes, by server: each server's run on two goroutines
	// (parallel), the servers at once.
	fix := make([][]func(context.Context) error, len(k.servers))
	fixes := 0
	add := func(s int, f func(context.Context) error) { fix[s], fixes = append(fix[s], f), fixes+1 }
	for p, name := range k.proxy {
		st, ok := states[name]
		if !ok {
			return fmt.Errorf("proxy %s is gone", name)
		}
		c := k.on(name)
		s := slices.Index(k.servers, c)
		if st.Upstream != k.addrs[p[1]] {
			add(s, func(ctx context.Context) error { return c.SetUpstream(ctx, name, k.addrs[p[1]]) })
		}
		if !st.Enabled {
			add(s, func(ctx context.Context) error { return c.SetEnabled(ctx, name, true) })
		}
		for _, t := range st.Toxics {
			switch {
			case t.Name != toxi.LatencyToxic:
				add(s, func(ctx context.Context) error { return c.RemoveToxic(ctx, name, t.Name) })
			case !sameLatency(t, k.latency[name]):
				lat := k.latency[name]
				add(s, func(ctx context.Context) error { return c.SetLatency(ctx, name, lat[0], lat[1]) })
			}
		}
	}
	err = onEach(k.servers, func(s int, _ *toxi.Client) error {
		return parallel(ctx, fix[s], func(ctx context.Context, f func(context.Context) error) error { return f(ctx) })
	})
	if err != nil {
		return err
	}
	// What the fixes did, read back.
	if fixes > 0 {
		if states, err = k.states(ctx); err != nil {
			return err
		}
	}
	for p, name := range k.proxy {
		st := states[name]
		if err := k.clean(name, p, st); err != nil {
			return err
		}
	}
	return nil
}

// clean reports what of proxy name (of pair p) differs from how it was
// created.
func (k *kept) clean(name string, p link, st toxi.State) error {
	switch {
	case !st.Enabled:
		return fmt.Errorf("proxy %s is still disabled", name)
	case st.Upstream != k.addrs[p[1]]:
		return fmt.Errorf("proxy %s forwards to %s, not %s", name, st.Upstream, k.addrs[p[1]])
	case st.Listen != k.listen[name]:
		return fmt.Errorf("proxy %s listens on %s, not %s", name, st.Listen, k.listen[name])
	}
	lat := k.latency[name]
	for _, t := range st.Toxics {
		if t.Name != toxi.LatencyToxic || !sameLatency(t, lat) {
			return fmt.Errorf("proxy %s keeps toxic %s (%s %v)", name, t.Name, t.Type, t.Attributes)
		}
	}
	if (lat != [2]time.Duration{}) && len(st.Toxics) != 1 {
		return fmt.Errorf("proxy %s lost its latency", name)
	}
	return nil
}

// sameLatency reports whether a latency toxic holds latency and jitter
// lat (Toxiproxy's attributes are whole milliseconds, read back from JSON).
func sameLatency(t toxi.Toxic, lat [2]time.Duration) bool {
	num := func(k string) int64 {
		f, _ := t.Attributes[k].(float64)
		return int64(f)
	}
	return t.Type == "latency" && num("latency") == lat[0].Milliseconds() && num("jitter") == lat[1].Milliseconds()
}

// quiet drains the connections made to the sockets since their processes
// died, and waits until none is left through the cluster (resetWait).
func (k *kept) quiet(ctx context.Context) error {
	ends := map[string]bool{}
	for _, addr := range slices.AppendSeq(slices.Clone(k.addrs), maps.Values(k.listen)) {
		if e, ok := procEnd(addr); ok {
			ends[e] = true
		}
	}
	deadline := time.Now().Add(resetWait)
	for {
		drain(k.lns)
		n, err := openConns(ends)
		switch {
		case err != nil:
			return fmt.Errorf("checking for connections left: %w", err)
		case n == 0:
			return nil
		case time.Now().After(deadline):
			return fmt.Errorf("%d connections through the cluster are still open %v after its trial", n, resetWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// errNoConnCheck: this platform cannot list the host's connections, so a
// cluster cannot be shown clean and is not kept.
var errNoConnCheck = errors.New("this platform cannot list open connections")

// procEnd writes an IPv4 address and port as /proc/net/tcp does: the
// address's four bytes read as one number in this machine's byte order,
// then the port, both in upper-case hex ("0100007F:1F90" for
// 127.0.0.1:8080 on a little-endian machine). ok is false for anything
// but an IPv4 address and port.
func procEnd(hostport string) (string, bool) {
	ap, err := netip.ParseAddrPort(hostport)
	if err != nil || !ap.Addr().Unmap().Is4() {
		return "", false
	}
	a := ap.Addr().Unmap().As4()
	return fmt.Sprintf("%08X:%04X", binary.NativeEndian.Uint32(a[:]), ap.Port()), true
}

type link = [2]int // (from, to)

// removeTimeout bounds the removal of a cluster's proxies, all of them,
// and its reset; removeHealthTimeout the health check before a removal.
const (
	removeTimeout       = 15 * time.Second
	removeHealthTimeout = time.Second
)

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

// stopWarm stops the cluster's kept processes, if any.
func (k *kept) stopWarm() {
	if k != nil && k.warm != nil {
		k.warm.stop()
		k.warm = nil
	}
}

// takeWarm gives a trial the cluster's kept processes, when there are and
// it can run on them (usable: warmable), for the trial's epoch after
// theirs; nil if not. Kept processes it does not give are stopped.
func (k *kept) takeWarm(usable bool, opt *Options, logf func(format string, args ...any)) *procs {
	w := k.warm
	if w == nil {
		return nil
	}
	k.warm = nil
	if !usable {
		w.stop()
		return nil
	}
	for _, p := range w.procs.all {
		select {
		case <-p.exited:
			logf("a kept node process (%d) has exited: starting new ones", p.idx)
			w.stop()
			return nil
		default:
		}
	}
	// Anything a node said after its reset (a connection it refused) is
	// the last trial's business.
	for drained := false; !drained; {
		select {
		case <-w.procs.reports:
		default:
			drained = true
		}
	}
	for _, p := range w.procs.all {
		p.pos, p.linked, p.stopped = -1, false, false
	}
	ps := w.procs
	ps.opt, ps.logf, ps.epoch = opt, logf, ps.epoch+1
	ps.byPos, ps.ranks, ps.restarting = nil, nil, map[int]bool{}
	return ps
}
