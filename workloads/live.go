package workloads

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/electbench/electbench/chaos/toxi"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// LiveOptions say how live trials run: where Toxiproxy is, how to start a
// node process, and the faults to inject.
type LiveOptions struct {
	// Toxiproxy is the URL of an existing toxiproxy-server; "" embeds one in
	// this process, on loopback. Either way it is driven through its HTTP
	// API, every call with a deadline.
	Toxiproxy string
	// Node is the command that runs one node process, before the node's own
	// flags; nil means this executable with the argument "node" (the
	// electbench binary re-executed as `electbench node`).
	Node []string
	// Env is added to the environment of every node process.
	Env []string
	// Bits is the puzzle difficulty of node identities, minted by each node
	// at its start and required of every peer; 0 means live.DefaultBits.
	Bits int
	// Allowance is added to the link latency in the unit T that algorithm
	// parameters are written in ("T1 = 2T"): a live message takes T plus
	// the processing of two runtimes and a proxy, and a timer of exactly a
	// round trip would fire ahead of its answer. 0 means max(5ms, T/2):
	// generous, because a loaded host delays processes by milliseconds.
	// Rows still use the configured latency as T.
	Allowance time.Duration
	// Faults are injected into every trial, in addition to Spec.Crashes.
	Faults []LiveFault
	// Forge makes node k (in spawn order, 0..N-1) present a dishonest
	// identity, one of live.ForgeModes: its peers must refuse it.
	Forge map[int]string
	// Skip says which trials are already done (resume): neither run nor
	// emitted.
	Skip func(Trial) bool
	// Log receives the nodes' diagnostics and the harness's notes.
	Log io.Writer
	// SetupTimeout bounds starting, identifying and linking a cluster; 0
	// means 30 s plus 1 s per node.
	SetupTimeout time.Duration
	// Observe, when set, is told what a trial acquired once its cluster is
	// up: tests check that all of it is released.
	Observe func(LiveInfo)
}

// LiveInfo is what one live trial acquired.
type LiveInfo struct {
	Toxiproxy  string   // the API endpoint
	Prefix     string   // every proxy of the trial is named with it
	Proxies    []string // proxy names
	ProxyAddrs []string // their listen addresses
	PIDs       []int    // node processes (each leads its own process group)
	NodeAddrs  []string // the nodes' listen addresses
	Dir        string   // the trial's temporary directory (identities)
}

// LiveFault is one fault injected into a live run at a time after its start
// (the harness's clock). Position lists name processes by ring position.
type LiveFault struct {
	// Kind is pause (SIGSTOP, then SIGCONT after For), restart (SIGKILL,
	// then a new process with the same identity after For), partition (the
	// links between Groups are cut, healed after For) or latency (Links get
	// Latency ± Jitter, restored after For).
	Kind    string
	Procs   []int    // pause, restart
	Groups  [][]int  // partition: each group talks only among itself
	Silent  bool     // partition by a timeout toxic (silent drops) rather than disabled proxies (failed connections)
	Links   [][2]int // latency: directed links (from, to)
	Latency time.Duration
	Jitter  time.Duration // Toxiproxy's own, unseeded
	At      time.Duration // since the run's start
	For     time.Duration // how long; 0 means until the end of the run
}

// Halves splits positions 0..n-1 into the first and the second half: the
// halves partition.
func Halves(n int) [][]int {
	a, b := make([]int, 0, n/2), make([]int, 0, n-n/2)
	for i := range n {
		if i < n/2 {
			a = append(a, i)
		} else {
			b = append(b, i)
		}
	}
	return [][]int{a, b}
}

// MaxLiveNodes bounds a live cluster: every node is a process and every
// directed link a proxy.
const MaxLiveNodes = 128

// ValidateLive reports what a live run cannot do with this spec, naming the
// flag at fault: live links delay in whole milliseconds (Toxiproxy's
// latency toxic), so T must be at least 1 ms and a constant latency a whole
// number of milliseconds.
func (s *Spec) ValidateLive() error {
	if err := s.Validate(); err != nil {
		return err
	}
	t := s.Latency.Mean()
	if t < time.Millisecond {
		return fmt.Errorf("--latency %s: live links delay in whole milliseconds (Toxiproxy's latency toxic), so T must be at least 1ms", s.Latency)
	}
	if s.Latency.Constant() && t%time.Millisecond != 0 {
		return fmt.Errorf("--latency %s: live links delay in whole milliseconds (Toxiproxy's latency toxic); use %v or %v", s.Latency, t.Truncate(time.Millisecond), t.Truncate(time.Millisecond)+time.Millisecond)
	}
	for _, n := range s.Nodes {
		if n > MaxLiveNodes {
			return fmt.Errorf("--nodes %d: a live cluster is at most %d processes", n, MaxLiveNodes)
		}
	}
	switch {
	case s.Detector.Kind == "inaccurate":
		return fmt.Errorf("--detector %s: the inaccurate detector is simulator-only; live runs take perfect(D) or heartbeat(P,τ)", s.Detector)
	case s.RankBy == RankByEpoch:
		return fmt.Errorf("--rank epoch: live nodes are ranked by the identities they mint; epoch ranking is simulator-only")
	case s.IDs.Mode == "pow":
		return fmt.Errorf("--ids %s: live nodes mint their own identities; the arrangement orders them (random, ascending, descending or a list)", s.IDs)
	}
	return nil
}

// LiveBaseRow is a live trial's row before it runs (see BaseRow).
func (t Trial) LiveBaseRow() reports.Row {
	row := t.BaseRow()
	row.Runtime = "live"
	row.Latency = liveLatencyLabel(t.Spec.Latency)
	return row
}

// liveLatencyLabel is the latency column of a live row: the model, marked
// when Toxiproxy's unseeded jitter is part of it.
func liveLatencyLabel(l trial.Latency) string {
	if n, ok := l.(trial.Normal); ok && n.SD >= time.Millisecond {
		return l.String() + "+toxiproxy-jitter(unseeded)"
	}
	return l.String()
}

// LiveRunner runs live trials one after another against one Toxiproxy.
type LiveRunner struct {
	opt    LiveOptions
	client *toxi.Client
	server *toxi.Server // nil with an external Toxiproxy
	trials int
}

// NewLiveRunner starts the embedded Toxiproxy, or checks that the external
// one answers.
func NewLiveRunner(ctx context.Context, opt LiveOptions) (*LiveRunner, error) {
	r := &LiveRunner{opt: opt}
	if len(r.opt.Node) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("live: finding this executable to run nodes: %w", err)
		}
		r.opt.Node = []string{exe, "node"}
	}
	url := opt.Toxiproxy
	if url == "" {
		s, err := toxi.StartEmbedded()
		if err != nil {
			return nil, err
		}
		r.server, url = s, s.URL()
	}
	r.client = toxi.NewClient(url)
	if _, err := r.client.Version(ctx); err != nil {
		r.Close()
		return nil, fmt.Errorf("--toxiproxy: %w", err)
	}
	return r, nil
}

// Close stops the embedded Toxiproxy, if any.
func (r *LiveRunner) Close() error {
	if r.server != nil {
		return r.server.Close()
	}
	return nil
}

// Run runs one trial. It never panics and always releases what it
// acquired; a trial that could not run has a row whose error column says
// why.
func (r *LiveRunner) Run(ctx context.Context, t Trial) *LiveResult {
	r.trials++
	lt := newLiveTrial(r, t, r.trials)
	return lt.run(ctx)
}

// RunLiveTrial runs one trial live, with a Toxiproxy of its own, and
// returns its row.
func RunLiveTrial(ctx context.Context, t Trial, opt LiveOptions) reports.Row {
	r, err := NewLiveRunner(ctx, opt)
	if err != nil {
		row := t.LiveBaseRow()
		row.Error = oneLine(err.Error())
		return row
	}
	defer r.Close()
	return r.Run(ctx, t).Row
}

// RunLive runs trials live, one at a time (a trial already uses a process
// per node), and emits each row as it ends. It stops at the first emit
// error or when ctx ends (after releasing the running trial's processes
// and proxies), and returns why.
func RunLive(ctx context.Context, trials []Trial, opt LiveOptions, emit func(reports.Row) error) error {
	var todo []Trial
	for _, t := range trials {
		if opt.Skip == nil || !opt.Skip(t) {
			todo = append(todo, t)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	r, err := NewLiveRunner(ctx, opt)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, t := range todo {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := r.Run(ctx, t)
		if err := ctx.Err(); err != nil {
			return err // an interrupted trial's row is not a result
		}
		if err := emit(res.Row); err != nil {
			return err
		}
	}
	return nil
}

// streamLinks seeds the per-link latency draws of a live trial.
const streamLinks = 0x11a4

// removeAll removes a trial's directory, best effort: it holds only the
// identities the nodes minted.
func removeAll(dir string) { os.RemoveAll(dir) }
