package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/chaos/toxi"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// Options say how live trials run: where Toxiproxy is, how to start a node
// process, and what the harness adds to every trial.
type Options struct {
	// Toxiproxy is the URL of an existing toxiproxy-server; "" embeds one in
	// this process, on loopback. Either way it is driven through its HTTP
	// API, every call with a deadline.
	Toxiproxy string
	// Node is the command that runs one node process, before the node's own
	// flags; nil means this executable with the argument "node" (the
	// electbench binary re-executed as `electbench node`). It must be the
	// harness's own binary: a node whose registry of kinds and timers
	// differs is refused (live.CheckRegistry).
	Node []string
	// Server is the command that runs one Toxiproxy server process, for a
	// cluster the harness process cannot hold alone (Servers); nil means
	// this executable with the argument "toxiproxy-server".
	Server []string
	// Env is added to the environment of every node and server process.
	Env []string
	// Bits is the puzzle difficulty of node identities, minted by each node
	// at its start and required of every peer; 0 means live.DefaultBits.
	Bits int
	// Allowance is added to the link latency in the unit T that algorithm
	// parameters are written in ("T1 = 2T"): a live message takes T plus
	// the processing of two runtimes and a proxy, and a timer of exactly a
	// round trip would fire ahead of its answer. 0 means max(5ms, T/2)
	// (trial.LiveUnit): generous, because a loaded host delays processes
	// by milliseconds.
	// Records still use the configured latency as T.
	Allowance time.Duration
	// Forge makes node k (in spawn order, 0..N-1) present a dishonest
	// identity, one of live.ForgeModes: its peers must refuse it.
	Forge map[int]string
	// Log receives the nodes' diagnostics and the harness's notes.
	Log io.Writer
	// SetupTimeout bounds starting, identifying and linking a cluster; 0
	// means 30 s plus 1 s per node.
	SetupTimeout time.Duration
	// Observe, when set, is told what a trial acquired once its cluster is
	// up: tests check that all of it is released.
	Observe func(Info)
	// Progress, when set, is told how each trial's set-up goes (Setup):
	// every stage's first and last state, and in between at most one call
	// per 100 ms, ending with Running. It is called on the trial's
	// goroutine, between the harness's steps, and must return at once.
	Progress func(Setup)
}

// Info is what one live trial acquired.
type Info struct {
	Toxiproxy  string   // the API endpoint of the first server
	Servers    []string // every server's, by server: a link's proxy is on its receiver's (serverOf)
	ServerPIDs []int    // the server processes beyond the first
	Prefix     string   // every proxy of the trial is named with it
	Proxies    []string // proxy names
	ProxyAddrs []string // their listen addresses
	PIDs       []int    // node processes (each leads its own process group)
	NodeAddrs  []string // the nodes' listen addresses
	Dir        string   // the trial's temporary directory (identities)
}

// Result is one live trial: the neutral record, and what only the live
// runtime sees.
type Result struct {
	trial.Record
	Ranks []nodes.Rank // by position: the identities the nodes minted
	// Refused lists the positions whose identity a peer refused; they take
	// no part (as if crashed at the start).
	Refused []int
	// Refusals counts handshake refusals, as every node counted them.
	Refusals int64
	// Sent, Received and Dropped are message counts by kind from the step
	// lines of every node (the runtime's PING and PING_ACK excluded);
	// Dropped were sent with no link up and never written. Lost is what
	// was written but never delivered: sent − dropped − received.
	Sent, Received, Dropped, Lost Counts
	// DeliveredFrom counts the messages delivered to any machine, by
	// sender position: a refused node's stays zero.
	DeliveredFrom []int64
	// Stats are the nodes' own final counts, by position; nil for a node
	// that did not stop cleanly (crashed, refused).
	Stats []*live.Stats
	// Suspicions are the detector verdicts the machines were given.
	Suspicions []Suspicion
	Info       Info
}

// Suspicion is one verdict: By suspected Of at At.
type Suspicion struct {
	At     time.Duration
	By, Of int
}

// Counts are message counts by nodes.Kind.
type Counts []int64

func newCounts() Counts { return make(Counts, nodes.NumKinds()) }

// grow makes room for the kinds registered since c was made: an external
// program's, registered as its nodes first name them.
func (c *Counts) grow() {
	if k := nodes.NumKinds(); k > len(*c) {
		*c = append(*c, make([]int64, k-len(*c))...)
	}
}

// Total is the sum of the counts.
func (c Counts) Total() int64 {
	var t int64
	for _, v := range c {
		t += v
	}
	return t
}

// String lists the non-zero counts as KIND=n;KIND=n, by kind name.
func (c Counts) String() string {
	var parts []string
	for k, v := range c {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", nodes.Kind(k), v))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ";")
}

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
	url := opt.Toxiproxy
	if url == "" {
		s, err := toxi.StartEmbedded()
		if err != nil {
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
	r.removeDead(ctx)
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
	if n := len(c.Dirs) + len(c.Proxies); n > 0 {
		fmt.Fprintf(r.opt.Log, "live: removed what dead runs left: %d temporary directories, %d proxies\n", len(c.Dirs), len(c.Proxies))
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
		return r.srv.close()
	}
	r.dropKept(context.Background())
	// A server found down is not waited for: an interrupted run must end
	// promptly. The next run against it removes what it kept.
	if c := r.srv.clients[0]; len(r.leftovers) > 0 && c.Down() == nil && c.Check(context.Background(), closeHealthTimeout) == nil {
		r.removeLeftovers(context.Background())
	}
	return r.srv.close()
}

// Run runs one trial of cfg on node processes and returns what it counted.
// Its crashes and faults run on the one fault engine (chaos/timeline), as
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
	fs, err := newFaults(&cfg)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	all := !ringOnly(cfg.Algorithm.Topology, len(cfg.Crashes), len(cfg.Faults),
		cfg.DetectorOrDefault().Kind == "heartbeat", len(r.opt.Forge) > 0)
	k, err := Servers(cfg.Ranks.Len(), cfg.Algorithm.Topology, all, r.srv.embedded != nil)
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
	lt := newLiveTrial(r, cfg, fs, r.trials)
	res, err := lt.run(ctx)
	if err != nil && ctx.Err() == nil {
		// The trial's failure is the infrastructure's when Toxiproxy
		// stopped answering or a process could not be started: whatever
		// else went wrong followed from that.
		cause := r.srv.down()
		if cause == nil {
			cause = lt.procs.spawnErr
		}
		if cause != nil {
			err = fmt.Errorf("%w: %w; %v", trial.ErrInfrastructure, cause, err)
		}
	}
	r.release(ctx, err)
	return res, err
}

// release keeps the cluster for the next trial once reset shows it clean,
// and otherwise removes it: after a trial that failed because Toxiproxy
// stopped answering or its context ended, or one whose cluster cannot be
// reset.
func (r *Runtime) release(ctx context.Context, err error) {
	k := r.kept
	switch {
	case k == nil:
	case r.srv.down() != nil:
		// Its proxies may not all be gone: a down server kept them, or
		// one that was slow to answer made them after the harness gave
		// up on it.
		r.leftovers = append(r.leftovers, k.prefix)
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
		if rerr := r.reset(ctx); rerr != nil {
			r.logf("cluster %s not kept: %v", k.prefix, rerr)
			r.dropKept(ctx)
		}
	}
}

// healthTimeout bounds a health check of Toxiproxy; closeHealthTimeout,
// the one of Close, which an interrupted run waits for.
const (
	healthTimeout      = 2 * time.Second
	closeHealthTimeout = 500 * time.Millisecond
)

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
