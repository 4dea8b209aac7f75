package harness

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/trial"
)

// Runtime runs live trials, one at a time, against one Toxiproxy, or,
// for clusters too large for one process, several (servers.go).
type Runtime struct {
	opt    Options
	srv    servers
	trials int
	// kept is the cluster kept for the trials of its size (kept.go);
	// clusters counts those made.
	kept     *kept
	clusters int
	// place is where the nodes run (placement.go).
	place placement
	// leftovers are the proxy prefixes of clusters whose proxies a down
	// server kept, or an interrupted run left to the embedded server's
	// Close: removed once it answers again (removeLeftovers).
	leftovers []string
}

// New starts the embedded Toxiproxy, or checks that the external one
// answers.
func New(ctx context.Context, opt Options) (*Runtime, error) {
	r := &Runtime{opt: opt}
	if len(r.opt.Node) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("live: finding this executable to run nodes: %w", err)
		}
		r.opt.Node = []string{exe, "node"}
	}
	if len(r.opt.Server) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("live: finding this executable to run Toxiproxy servers: %w", err)
		}
		r.opt.Server = []string{exe, "toxiproxy-server"}
	}
	if len(r.opt.Agent) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("live: finding this executable to run agents: %w", err)
		}
		r.opt.Agent = []string{exe, "agent"}
	}
	if opt.Netns > 0 && opt.Toxiproxy != "" {
		return nil, errors.New("live: --toxiproxy with --netns: each --netns host runs a Toxiproxy server of its own")
	}
	if opt.Hosts != nil && opt.Toxiproxy != "" {
		return nil, errors.New("live: --toxiproxy with --hosts: each host's agent runs a Toxiproxy server of its own")
	}
	// What dead runs left goes first: a killed --netns run's hosts hold
	// the addresses this run's would take.
	r.removeDead(ctx)
	place, err := newPlacement(&r.opt)
	if err != nil {
		return nil, err
	}
	r.place = place
	url := opt.Toxiproxy
	if url == "" {
		s, err := toxi.StartEmbedded()
		if err != nil {
			r.place.close()
			return nil, fmt.Errorf("%w: %w", trial.ErrInfrastructure, err)
		}
		r.srv.embedded, url = s, s.URL()
	}
	r.srv.clients = []*toxi.Client{toxi.NewClient(url)}
	if _, err := r.srv.clients[0].Version(ctx); err != nil {
		r.Close()
		if errors.Is(err, toxi.ErrUnreachable) {
			return nil, fmt.Errorf("--toxiproxy: %w: %w", trial.ErrInfrastructure, err)
		}
		return nil, fmt.Errorf("--toxiproxy: %w", err)
	}
	if hs, ok := r.place.(hostServers); ok {
		if err := r.srv.startOnHosts(ctx, hs, &r.opt); err != nil {
			r.Close()
			return nil, fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, err)
		}
	}
	return r, nil
}

// removeDead removes what earlier runs, killed before they could clean
// up, left: their temporary directories and, on an external server, their
// proxies. What cannot be removed is logged, not fatal: it is not this
// run's.
func (r *Runtime) removeDead(ctx context.Context) {
	url := r.opt.Toxiproxy
	ctx, cancel := context.WithTimeout(ctx, removeTimeout)
	defer cancel()
	c, err := Clean(ctx, url)
	if r.opt.Log == nil {
		return
	}
	if n := len(c.Dirs) + len(c.Proxies) + len(c.Tables) + len(c.Hosts); n > 0 {
		fmt.Fprintf(r.opt.Log, "live: removed what dead runs left: %d temporary directories, %d proxies, %d nftables tables, %d namespaces and links\n", len(c.Dirs), len(c.Proxies), len(c.Tables), len(c.Hosts))
	}
	if err != nil {
		fmt.Fprintf(r.opt.Log, "live: removing what dead runs left: %v\n", err)
	}
}

// Close removes the kept cluster and what a down server kept of this
// runtime's trials, if it answers now, and stops the embedded Toxiproxy
// and the server processes, if any: their proxies go with them, at once.
func (r *Runtime) Close() error {
	if r.srv.embedded != nil {
		r.kept.stopWarm()
		r.kept.closeListeners()
		r.kept = nil
		return errors.Join(r.srv.close(), r.place.close())
	}
	r.dropKept(context.Background())
	// A server found down is not waited for: an interrupted run must end
	// promptly. The next run against it removes what it kept.
	if c := r.srv.clients[0]; len(r.leftovers) > 0 && c.Down() == nil && c.Check(context.Background(), closeHealthTimeout) == nil {
		r.removeLeftovers(context.Background())
	}
	return errors.Join(r.srv.close(), r.place.close())
}

// Run runs one trial of cfg on node processes and returns what it counted.
// Its crashes and faults run on the one fault engine (nodes/trial/timeline), as
// in the simulator, acting through signals, the control channel and
// Toxiproxy (faults.go).
//
// Run never panics and always releases what it acquired. A nil Result
// with an error means the trial could not run; a Result with an error
// means it ran but cannot be judged faithfully (a node failed, counts do
// not reconcile, ctx ended): its record is what was seen. Events go to
// cfg.Events once the trial is over, in time order; a trial.SetupSink
// learns the ranks the nodes minted before the first.
func (r *Runtime) Run(ctx context.Context, cfg trial.Config) (*Result, error) {
	if err := live.Capabilities.Check(&cfg); err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	if srv := systemServer(cfg.Algorithm); srv != nil && r.opt.Netns > 0 {
		return nil, fmt.Errorf("live: %s runs its own servers on this host's loopback, not node processes: --netns cannot place them", cfg.Algorithm.Name)
	}
	if srv := systemServer(cfg.Algorithm); srv != nil {
		// A server algorithm runs its own processes, not nodes behind
		// Toxiproxy (systrial_linux.go).
		r.trials++
		return runSystem(ctx, srv, &cfg, func(format string, args ...any) { r.logf("trial %d: "+format, append([]any{r.trials}, args...)...) })
	}
	fs, err := newFaults(&cfg)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	for i, f := range cfg.Faults {
		if _, ok := f.Link.(trial.HostCut); ok && r.srv.hosts < 2 {
			return nil, fmt.Errorf("live: fault %d (%s) cuts between hosts, and this run's nodes are on %d: run it on hosts (--netns K, K ≥ 2)", i, f.Name, r.srv.hosts)
		}
	}
	all := !ringOnly(cfg.Algorithm.Topology, len(cfg.Faults),
		cfg.DetectorOrDefault().Kind == "heartbeat", len(r.opt.Forge) > 0)
	k, err := r.serversFor(cfg.Ranks.Len(), cfg.Algorithm.Topology, all)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	// A server found down by an earlier trial is checked once more, so
	// that a trial does not start on a dead one.
	if err := r.srv.check(ctx, healthTimeout); err != nil {
		return nil, fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, err)
	}
	r.removeLeftovers(ctx)
	if _, err := r.keptFor(ctx, cfg.Ranks.Len(), k); err != nil {
		return nil, fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, err)
	}
	r.trials++
	lt := newLiveTrial(&r.opt, r.kept, &r.srv, cfg, fs, r.trials)
	res, err := lt.run(ctx)
	if ctx.Err() == nil {
		// The trial is the infrastructure's failure, not the algorithm's,
		// when Toxiproxy stopped answering or was reconfigured or a
		// process could not be started, during the trial or found once it
		// ran: whatever the trial saw followed from that, even a trial
		// that ended without an error of its own (a killed server's
		// links fail as no fault of the trial cut them).
		cause := r.srv.down()
		if cause == nil {
			cause = lt.procs.spawnErr
		}
		if cause == nil {
			cause = lt.links.infra
		}
		if cause == nil {
			cause = hostFault(r.place)
		}
		if cause == nil {
			cause = r.verify(ctx, lt.links)
		}
		switch {
		case cause != nil && err != nil:
			err = fmt.Errorf("%w: %w; %v", trial.ErrInfrastructure, cause, err)
		case cause != nil:
			err = fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, cause)
		}
	}
	r.release(ctx, err, lt.links)
	return res, err
}

// serversFor is how many Toxiproxy servers a cluster of n nodes takes
// (Servers), or, with a server per host, the hosts' once CheckHosts finds
// that they hold it (and, through agents, each host's server's own limit
// on open files).
func (r *Runtime) serversFor(n int, topo nodes.Topology, all bool) (int, error) {
	if r.srv.hosts == 0 {
		return Servers(n, topo, all, r.srv.embedded != nil)
	}
	if err := CheckHosts(n, topo, all, false, r.srv.hosts); err != nil {
		return r.srv.hosts, err
	}
	if hl, ok := r.place.(hostLimits); ok {
		return r.srv.hosts, checkServerLimits(n, topo, all, r.srv.hosts, hl.serverLimit)
	}
	return r.srv.hosts, nil
}

// verify checks, once a trial has run and before its row is written,
// that the infrastructure held throughout: every Toxiproxy server the
// harness does not embed still answers (a killed one took its proxies,
// and the trial's links, with it), and, on an external one, every proxy
// of the trial is still there and forwards where the harness last
// pointed it (links.readBack). Its error is the trial's infrastructure
// fault.
func (r *Runtime) verify(ctx context.Context, ls *links) error {
	err := onEach(r.srv.clients, func(i int, c *toxi.Client) error {
		if i == 0 && r.srv.embedded != nil {
			return nil // this process: it cannot die apart from the harness
		}
		return c.Check(ctx, healthTimeout)
	})
	if err != nil || r.srv.embedded != nil || len(ls.list) == 0 {
		return err
	}
	ls.after, err = ls.readBack(ctx)
	return err
}

// release keeps the cluster for the next trial once reset shows it clean,
// and otherwise removes it: after a trial that failed because Toxiproxy
// stopped answering, or of another infrastructure fault, or its context
// ended, or one whose cluster cannot be reset. ls are the trial's links.
func (r *Runtime) release(ctx context.Context, err error, ls *links) {
	k := r.kept
	switch {
	case k == nil:
	case r.srv.down() != nil:
		// Its proxies may not all be gone: a down server kept them, or
		// one that was slow to answer made them after the harness gave
		// up on it.
		r.leftovers = append(r.leftovers, k.prefix)
		r.dropKept(ctx)
	case errors.Is(err, trial.ErrInfrastructure):
		// Nothing of a cluster the infrastructure failed under is
		// trusted: a proxy repointed during the trial, kept processes
		// that refused the identity it led them to.
		r.dropKept(ctx)
	case err != nil && ctx.Err() != nil:
		// Interrupted: proxies a call abandoned in flight may still be
		// made, and are removed by prefix (leftovers) at the next trial
		// or at Close; the embedded server's Close removes every proxy
		// at once, so an interrupted run ends without a call per proxy.
		r.leftovers = append(r.leftovers, k.prefix)
		if r.srv.embedded != nil {
			k.stopWarm()
			k.closeListeners()
			r.kept = nil
			return
		}
		r.dropKept(ctx)
	default:
		began := time.Now()
		// The embedded server is this process: after a trial whose faults
		// called it on no proxy, the proxies are as the trial found them,
		// and nothing need be read. An external one's were read back
		// once the trial ran (verify): reset starts from that read.
		unchanged := r.srv.embedded != nil && !ls.touched
		if rerr := k.reset(ctx, ls.after, unchanged); rerr != nil {
			r.logf("cluster %s not kept: %v", k.prefix, rerr)
			r.dropKept(ctx)
			return
		}
		r.logf("trial %d: cluster reset in %v", r.trials, time.Since(began).Round(time.Millisecond))
	}
}

// Recorder runs trials on R for callers that want the neutral record
// only: it has the method set of workloads.Runtime, so workloads runs live
// trials without importing the harness (nor, with it, Toxiproxy and
// process control). Last is the latest trial's full Result, for tests that
// check the live-only facts beside a row.
type Recorder struct {
	R    *Runtime
	Last *Result
}

// Run runs one trial on R.
func (r *Recorder) Run(ctx context.Context, cfg trial.Config) (*trial.Record, error) {
	res, err := r.R.Run(ctx, cfg)
	r.Last = res
	if res == nil {
		return nil, err
	}
	return &res.Record, err
}

// keptFor returns the runtime's cluster of n nodes on at least k servers,
// making one (and removing one of another size, or on fewer servers) if
// needed, and starting the server processes it needs. A cluster split
// over more servers than a trial needs serves it: a ring trial between two
// complete-graph trials of 128 nodes would otherwise make the second's
// 16,256 proxies again (half a minute), as the ring needs one server.
func (r *Runtime) keptFor(ctx context.Context, n, k int) (*kept, error) {
	if r.kept != nil && r.kept.n == n && len(r.kept.servers) >= k {
		return r.kept, nil
	}
	r.dropKept(ctx)
	if r.srv.hosts == 0 {
		if err := r.srv.grow(ctx, k, &r.opt); err != nil {
			return nil, err
		}
	}
	r.clusters++
	kc := &kept{n: n, prefix: fmt.Sprintf("eb%d-%s-c%d-%x-", os.Getpid(), ownerToken(), r.clusters, rand.Uint32()),
		proxy: map[link]string{}, listen: map[string]string{}, latency: map[string][2]time.Duration{},
		servers: slices.Clone(r.srv.forCluster(k)), at: map[string]*toxi.Client{}, hosts: onHosts{r.place, n}}
	if err := kc.listenAll(); err != nil {
		return nil, err
	}
	r.kept = kc
	return kc, nil
}

// dropKept removes the runtime's cluster: its proxies (with a context of
// their own: the run's may be cancelled, and they must go all the same)
// and its sockets. A server found down is not waited for: what it keeps is
// removed once it answers (leftovers).
func (r *Runtime) dropKept(ctx context.Context) {
	k := r.kept
	if k == nil {
		return
	}
	r.kept = nil
	k.stopWarm()
	k.closeListeners()
	if len(k.proxy) == 0 {
		return
	}
	// An interrupted run waits for no more than closeHealthTimeout on a
	// server that does not answer: Ctrl-C acts within a second.
	health := removeHealthTimeout
	if ctx.Err() != nil {
		health = closeHealthTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := onEach(k.servers, func(_ int, c *toxi.Client) error { return c.Check(ctx, health) }); err != nil {
		r.logf("removing proxies of %s later: %v", k.prefix, err)
		r.leftovers = append(r.leftovers, k.prefix)
		return
	}
	if err := k.delete(ctx, k.names()); err != nil {
		r.logf("removing proxies of %s: %v", k.prefix, err)
		r.leftovers = append(r.leftovers, k.prefix)
	}
}

func (r *Runtime) logf(format string, args ...any) {
	if r.opt.Log != nil {
		fmt.Fprintf(r.opt.Log, "live: "+format+"\n", args...)
	}
}

// removeLeftovers deletes the proxies of this runtime's trials that a down
// server kept, from every server that answers. The prefixes are kept until
// Close: a request the server queued while stopped may create proxies
// after it answers again.
func (r *Runtime) removeLeftovers(ctx context.Context) error {
	if len(r.leftovers) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, removeTimeout)
	defer cancel()
	return onEach(r.srv.clients, func(_ int, c *toxi.Client) error {
		if c.Down() != nil {
			return nil
		}
		return r.removeLeftoversOn(ctx, c)
	})
}

// removeLeftoversOn deletes the leftovers one server holds.
func (r *Runtime) removeLeftoversOn(ctx context.Context, c *toxi.Client) error {
	names, err := c.Names(ctx, fmt.Sprintf("eb%d-%s-", os.Getpid(), ownerToken()))
	if err != nil {
		return err
	}
	var left []string
	for _, name := range names {
		for _, prefix := range r.leftovers {
			if strings.HasPrefix(name, prefix) {
				left = append(left, name)
				break
			}
		}
	}
	if len(left) == 0 {
		return nil
	}
	return c.Delete(ctx, left...)
}
