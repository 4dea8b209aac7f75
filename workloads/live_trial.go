package workloads

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/electbench/electbench/chaos/toxi"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/pow"
	"github.com/electbench/electbench/reports"
)

// LiveResult is one live trial: its row, and what the harness saw.
type LiveResult struct {
	Row   reports.Row
	Ranks []nodes.Rank // by position
	// Refused lists the positions whose identity a peer refused; they take
	// no part (as if crashed at the start).
	Refused []int
	// Refusals counts handshake refusals, as every node counted them.
	Refusals int64
	// Sent, Received and Dropped are message counts by kind from the step
	// lines of every node (the runtime's PING and PING_ACK excluded);
	// Dropped were sent with no link up and never written. Lost is what
	// was written but never delivered: sent − dropped − received.
	Sent, Received, Dropped, Lost map[string]int64
	// DeliveredFrom counts the messages delivered to any machine, by
	// sender position: a refused node's stays zero.
	DeliveredFrom []int64
	// Decisions are every position's latest decision.
	Decisions []trial.Decision
	// Stats are the nodes' own final counts, by position; nil for a node
	// that did not stop cleanly (crashed, refused).
	Stats []*live.Stats
	// Suspicions are the detector verdicts the machines were given.
	Suspicions []LiveSuspicion
	Crashes    []trial.CrashRecord
	Info       LiveInfo
}

// LiveSuspicion is one verdict: By suspected Of at At.
type LiveSuspicion struct {
	At     time.Duration
	By, Of int
}

// proc is one node process (one incarnation of a position).
type proc struct {
	idx     int // spawn index
	pos     int // ring position; -1 until assigned
	inc     int // incarnation of the position: restarts add one
	dir     string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	pid     int
	addr    string
	ident   *pow.Identity
	linked  bool
	killed  bool // by the harness: its exit is expected
	exited  chan struct{}
	stopped bool // answered stop with stats
	tail    *tailWriter
}

type nodeReport struct {
	p   *proc
	r   live.Report
	eof bool
}

// timeline entries feed the checker in time order at the end.
type tlEntry struct {
	at     time.Duration
	seq    int
	kind   uint8 // tlDecide, tlPhase, tlCrash
	p      int
	leader nodes.Rank
	phase  string
	from   int
	msg    nodes.Message
}

const (
	tlDecide uint8 = iota
	tlPhase
	tlCrash
	tlRestart   // p runs again, a fresh machine
	tlSent      // quorum algorithms: a message sent by p
	tlDelivered // quorum algorithms: a message delivered to p from from
)

// liveTrial is the state of one live trial; only its run goroutine touches
// it, except for the channels.
type liveTrial struct {
	r      *LiveRunner
	t      Trial
	s      *Spec
	n      int
	T      time.Duration // configured one-way latency: rows' unit
	tAlg   time.Duration // the unit the algorithms' parameters are read in: T plus the allowance
	prefix string
	res    LiveResult
	errs   []string

	dir     string
	procs   []*proc // current incarnation by position (after assignment)
	all     []*proc // every process ever started
	reports chan nodeReport
	actions chan func()
	done    chan struct{}
	wg      sync.WaitGroup

	ranks      []nodes.Rank
	initiators []int
	crashes    []trial.Crash
	det        trial.Detector
	links      [][2]int
	proxy      map[[2]int]string // link → proxy name
	latency    map[[2]int]time.Duration
	jitter     map[[2]int]time.Duration

	t0      int64     // the run's start on the host's monotonic clock (live.Mono)
	start   time.Time // the same instant on this process's clock
	started bool
	alive   []bool
	paused  []bool
	gone    []bool // will not come back: crashed, refused, paused until the end
	refused []bool

	sentLink, recvLink []int64 // n×n, core messages written / delivered
	lossy              []bool  // n×n: links that may lose messages
	anyLossy           bool
	armed              []int
	expect             []int // per position: commands sent whose step has not come back
	// Kept up to date event by event, so that checking whether the run
	// has settled costs nothing: links (to a process that runs) with
	// messages written but not delivered, and running processes with
	// timers armed or commands unanswered (recount after changes to gone
	// or lossy).
	unsettledLinks, busyProcs int
	pending                   int           // scheduled harness actions not yet done
	timers                    []*time.Timer // of the scheduled actions, stopped at teardown
	lastCore                  time.Duration
	quiet                     time.Duration // how long a lossy or heartbeat run must be quiet
	elected                   int64         // election messages sent
	afterMsgs                 []int         // crashes waiting for a message count
	onElected                 []int         // crashes waiting for the first decision
	lastLeader                nodes.Rank
	timeline                  []tlEntry
	decisions                 []trial.Decision
	fired                     map[string]int64
	maint                     []map[string]int64 // per position: the latest maintenance counts sent
	nodeSent                  []map[string]int64 // per position: messages sent, by kind, from its steps
	addrs                     map[string]string  // proxy name → listen address
	quiescent                 bool
	atDeadline                string // what had not settled when the deadline passed
	stopping                  bool   // teardown began: the run's counts are final
	bytes                     int64
	steps                     int64
	firstInit                 time.Duration
	lastElection              time.Duration
	faulty                    bool // any fault beyond crashes at the start
	restarting                map[int]bool

	// The scenario's faults (live_chaos.go).
	lfaults         []*liveFault
	faultLog        []trial.FaultEvent // the faults column
	faultRand       *rand.Rand
	onElectionStart []func()
	onDecided       []func()
	onMessages      []msgWait
	cuts            map[[2]int]int // partitions holding each link cut
}

func newLiveTrial(r *LiveRunner, t Trial, serial int) *liveTrial {
	n := t.Nodes
	lt := &liveTrial{
		r: r, t: t, s: t.Spec, n: n, T: t.Spec.Latency.Mean(),
		prefix:  fmt.Sprintf("eb%d-%d-%x-", os.Getpid(), serial, rand.Uint32()),
		reports: make(chan nodeReport, 256),
		actions: make(chan func(), 64),
		done:    make(chan struct{}),
		proxy:   map[[2]int]string{}, latency: map[[2]int]time.Duration{}, jitter: map[[2]int]time.Duration{},
		fired:      map[string]int64{},
		restarting: map[int]bool{},
		cuts:       map[[2]int]int{},
		firstInit:  -1, lastElection: -1,
	}
	allow := r.opt.Allowance
	if allow <= 0 {
		allow = max(5*time.Millisecond, lt.T/2)
	}
	lt.tAlg = lt.T + allow
	lt.res.Row = t.LiveBaseRow()
	lt.res.Sent, lt.res.Received, lt.res.Dropped, lt.res.Lost = map[string]int64{}, map[string]int64{}, map[string]int64{}, map[string]int64{}
	lt.res.Info.Toxiproxy = r.client.URL()
	lt.res.Info.Prefix = lt.prefix
	return lt
}

func (lt *liveTrial) logf(format string, args ...any) {
	if lt.r.opt.Log != nil {
		fmt.Fprintf(lt.r.opt.Log, "live: "+format+"\n", args...)
	}
}

func (lt *liveTrial) fail(format string, args ...any) {
	lt.errs = append(lt.errs, fmt.Sprintf(format, args...))
}

func (lt *liveTrial) now() time.Duration {
	if !lt.started {
		return 0
	}
	return time.Since(lt.start) // Go's monotonic clock: CLOCK_MONOTONIC, like live.Mono, read cheaply
}

// run executes the trial and always releases its processes, proxies and
// files.
func (lt *liveTrial) run(ctx context.Context) (res *LiveResult) {
	defer func() {
		if p := recover(); p != nil {
			lt.fail("panic: %v", p)
		}
		lt.teardown()
		lt.finish()
		res = &lt.res
	}()
	if err := lt.setup(ctx); err != nil {
		lt.fail("%v", err)
		return
	}
	lt.execute(ctx)
	return
}

// --- setup ---------------------------------------------------------------------

func (lt *liveTrial) setupTimeout() time.Duration {
	if d := lt.r.opt.SetupTimeout; d > 0 {
		return d
	}
	return 30*time.Second + time.Duration(lt.n)*time.Second
}

func (lt *liveTrial) setup(ctx context.Context) error {
	s, a, n := lt.s, lt.t.Algo, lt.n
	ctx, cancel := context.WithTimeout(ctx, lt.setupTimeout())
	defer cancel()

	// The arrangement orders positions; minted identities are handed out
	// in that order, so relative ranks are the arrangement's.
	template := s.IDs.Ranks(n, lt.t.Seed)
	if a.Alg.StartsAll {
		lt.initiators = nil
	} else {
		lt.initiators = s.Initiators.Positions(template, lt.t.Seed)
	}
	targets := lt.initiators
	if a.Alg.StartsAll {
		targets = allPositions(n)
	}
	crashes, err := resolveCrashes(s.Crashes, template, targets, lt.t.Seed, lt.T)
	if err != nil {
		return err
	}
	lt.crashes = crashes
	lt.det = s.Detector
	if lt.det.Kind == "" {
		lt.det = trial.DefaultDetector(lt.T)
	}
	if lt.det.Kind == "heartbeat" {
		lt.quiet = lt.det.Tau + 2*lt.det.P + 4*lt.T
	}

	dir, err := os.MkdirTemp("", "electbench-live-")
	if err != nil {
		return err
	}
	lt.dir = dir
	lt.res.Info.Dir = dir
	for i := range n {
		if _, err := lt.spawn(i, filepath.Join(dir, strconv.Itoa(i)), lt.r.opt.Forge[i]); err != nil {
			return err
		}
	}
	hellos := 0
	for hellos < n {
		rep, err := lt.next(ctx)
		if err != nil {
			return fmt.Errorf("waiting for %d nodes to start: %w", n-hellos, err)
		}
		switch {
		case rep.eof:
			return fmt.Errorf("node %d exited while starting: %s", rep.p.idx, rep.p.tail.String())
		case rep.r.Type == "hello":
			id, err := pow.Decode([]byte(rep.r.Identity))
			if err != nil {
				return fmt.Errorf("node %d: its identity does not decode: %w", rep.p.idx, err)
			}
			rep.p.ident, rep.p.addr = id, rep.r.Addr
			hellos++
		}
	}
	if err := lt.assign(template); err != nil {
		return err
	}
	lt.alive, lt.paused, lt.gone, lt.refused = make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	for i := range lt.alive {
		lt.alive[i] = true
	}
	lt.sentLink, lt.recvLink, lt.lossy = make([]int64, n*n), make([]int64, n*n), make([]bool, n*n)
	lt.armed = make([]int, n)
	lt.expect = make([]int, n)
	lt.decisions = make([]trial.Decision, n)
	lt.maint = make([]map[string]int64, n)
	lt.nodeSent = make([]map[string]int64, n)
	lt.res.DeliveredFrom = make([]int64, n)
	lt.res.Stats = make([]*live.Stats, n)
	lt.recount()

	// Crashes at the start: those processes never run.
	for _, c := range lt.crashes {
		if c.When == trial.AtStart {
			lt.crash(c.Pos, true)
		}
	}
	lt.chaosAtStart()
	if err := lt.makeLinks(ctx); err != nil {
		return err
	}
	for p := range n {
		if lt.alive[p] {
			lt.configure(lt.procs[p])
		}
	}
	// Wait until every live node has every outgoing link up or refused.
	for !lt.allLinked() {
		rep, err := lt.next(ctx)
		if err != nil {
			return fmt.Errorf("waiting for the nodes to link: %w", err)
		}
		lt.handle(rep)
	}
	// A node whose identity was refused takes no part: it is stopped and
	// treated as crashed at the start (its peers' detectors suspect it as
	// they would such a crash).
	for p := range n {
		if lt.refused[p] && lt.alive[p] {
			lt.res.Refused = append(lt.res.Refused, p)
			lt.crash(p, true)
		}
	}
	lt.res.Info.PIDs = nil
	for _, p := range lt.all {
		lt.res.Info.PIDs = append(lt.res.Info.PIDs, p.pid)
		lt.res.Info.NodeAddrs = append(lt.res.Info.NodeAddrs, p.addr)
	}
	if lt.r.opt.Observe != nil {
		lt.r.opt.Observe(lt.res.Info)
	}
	return nil
}

// spawn starts a node process for spawn index idx keeping its identity in
// dir.
func (lt *liveTrial) spawn(idx int, dir, forge string) (*proc, error) {
	opt := lt.r.opt
	bits := opt.Bits
	if bits <= 0 {
		bits = live.DefaultBits
	}
	args := append(slices.Clone(opt.Node[1:]), "--identity-dir", dir, "--bits", strconv.Itoa(bits))
	if forge != "" {
		args = append(args, "--forge", forge)
	}
	cmd := exec.Command(opt.Node[0], args...)
	cmd.Env = append(os.Environ(), opt.Env...)
	cmd.SysProcAttr = nodeSysProcAttr()
	p := &proc{idx: idx, pos: -1, dir: dir, cmd: cmd, exited: make(chan struct{}), tail: &tailWriter{log: opt.Log, prefix: fmt.Sprintf("node %d: ", idx)}}
	cmd.Stderr = p.tail
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting node process %q: %w", opt.Node[0], err)
	}
	p.stdin, p.pid = stdin, cmd.Process.Pid
	lt.all = append(lt.all, p)
	lt.wg.Add(1)
	go lt.readReports(p, stdout)
	return p, nil
}

// readReports forwards a node's control lines to the trial, then reaps it.
func (lt *liveTrial) readReports(p *proc, stdout io.Reader) {
	defer lt.wg.Done()
	defer close(p.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		r, err := live.ParseReport(sc.Bytes())
		if err != nil {
			r = live.Report{Type: "error", Error: fmt.Sprintf("unreadable control line %q: %v", sc.Text(), err)}
		}
		select {
		case lt.reports <- nodeReport{p: p, r: r}:
		case <-lt.done:
		}
	}
	io.Copy(io.Discard, stdout)
	p.cmd.Wait()
	select {
	case lt.reports <- nodeReport{p: p, eof: true}:
	case <-lt.done:
	}
}

// next waits for the next report.
func (lt *liveTrial) next(ctx context.Context) (nodeReport, error) {
	select {
	case r := <-lt.reports:
		return r, nil
	case <-ctx.Done():
		return nodeReport{}, ctx.Err()
	}
}

// assign hands identities out to positions by rank order.
func (lt *liveTrial) assign(template []nodes.Rank) error {
	n := lt.n
	byRank := slices.Clone(lt.all)
	slices.SortFunc(byRank, func(a, b *proc) int { return a.ident.ID.Compare(b.ident.ID) })
	for i := 1; i < n; i++ {
		if byRank[i].ident.ID == byRank[i-1].ident.ID {
			return fmt.Errorf("nodes %d and %d show the same identity %s", byRank[i-1].idx, byRank[i].idx, byRank[i].ident.ID)
		}
	}
	positions := allPositions(n)
	slices.SortFunc(positions, func(a, b int) int { return template[a].Compare(template[b]) })
	lt.procs = make([]*proc, n)
	lt.ranks = make([]nodes.Rank, n)
	for k, pos := range positions {
		p := byRank[k]
		p.pos = pos
		lt.procs[pos] = p
		lt.ranks[pos] = p.ident.Rank()
	}
	lt.res.Ranks = lt.ranks
	return nil
}

// makeLinks creates a proxy per directed link the run can use and sets
// every link's latency. Rings with no fault use only their own links;
// otherwise a process may reach any other (ring repair, heartbeats,
// complete topologies).
func (lt *liveTrial) makeLinks(ctx context.Context) error {
	n, topo := lt.n, lt.t.Algo.Alg.Topology
	ringOnly := topo.IsRing() && len(lt.crashes) == 0 && len(lt.r.opt.Faults) == 0 && len(lt.s.Faults) == 0 && len(lt.r.opt.Forge) == 0 && lt.det.Kind != "heartbeat"
	var specs []toxi.Link
	for i := range n {
		for j := range n {
			if i == j || !lt.alive[i] || !lt.alive[j] {
				continue
			}
			if ringOnly && j != (i+1)%n && (topo != nodes.RingBi || j != (i+n-1)%n) {
				continue
			}
			l := [2]int{i, j}
			name := lt.prefix + strconv.Itoa(i) + "-" + strconv.Itoa(j)
			lt.links = append(lt.links, l)
			lt.proxy[l] = name
			specs = append(specs, toxi.Link{Name: name, Upstream: lt.procs[j].addr})
			lt.res.Info.Proxies = append(lt.res.Info.Proxies, name)
		}
	}
	addrs, err := lt.r.client.Create(ctx, specs)
	if err != nil {
		lt.links, lt.proxy = nil, map[[2]int]string{}
		lt.res.Info.Proxies = nil
		return err
	}
	for _, name := range lt.res.Info.Proxies {
		lt.res.Info.ProxyAddrs = append(lt.res.Info.ProxyAddrs, addrs[name])
	}
	lt.addrs = addrs
	// Per-link latency from our seed; jitter, if any, is Toxiproxy's.
	src := rand.New(rand.NewPCG(lt.t.Seed, streamLinks))
	for _, l := range lt.links {
		lat, jit := liveLinkLatency(lt.s.Latency, src)
		lt.latency[l], lt.jitter[l] = lat, jit
	}
	return lt.parallel(ctx, lt.links, func(ctx context.Context, l [2]int) error {
		if lt.latency[l] == 0 && lt.jitter[l] == 0 {
			return nil
		}
		return lt.r.client.SetLatency(ctx, lt.proxy[l], lt.latency[l], lt.jitter[l])
	})
}

// parallel runs f over links on two goroutines: a large cluster has
// thousands of links and each toxic is one API call. Two, because the HTTP
// client keeps two idle connections to a server: more callers would dial
// new ones and close them again, call after call.
func (lt *liveTrial) parallel(ctx context.Context, links [][2]int, f func(context.Context, [2]int) error) error {
	const workers = 2
	ch := make(chan [2]int)
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

// liveLinkLatency draws one link's latency from the model with our source:
// constant T; normal: its mean, with its deviation as Toxiproxy's jitter;
// otherwise one sample per link. Toxiproxy works in whole milliseconds.
func liveLinkLatency(l trial.Latency, src *rand.Rand) (lat, jitter time.Duration) {
	round := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	switch m := l.(type) {
	case trial.Constant:
		return round(m.Mean()), 0
	case trial.Normal:
		return round(m.MeanD), round(m.SD)
	}
	return round(l.Sample(src)), 0
}

func (lt *liveTrial) configure(p *proc) {
	a := lt.t.Algo
	cfg := &live.Config{
		Algorithm: a.Alg.Name, Variant: a.Variant, Params: a.Params,
		T: lt.tAlg, Seed: lt.t.Seed, Self: p.pos, SelfLatency: lt.T,
		MinBits: lt.bits(),
	}
	for _, r := range lt.ranks {
		cfg.Ranks = append(cfg.Ranks, r.String())
	}
	for _, l := range lt.links {
		if l[0] == p.pos {
			cfg.Links = append(cfg.Links, live.Link{To: l[1], Addr: lt.addrs[lt.proxy[l]]})
		}
	}
	if lt.det.Kind == "heartbeat" {
		cfg.Detector = live.Detector{Kind: "heartbeat", P: lt.det.P, Tau: lt.det.Tau}
	}
	lt.send(p, live.Command{Type: "configure", Config: cfg})
}

func (lt *liveTrial) bits() int {
	if lt.r.opt.Bits > 0 {
		return lt.r.opt.Bits
	}
	return live.DefaultBits
}

// send writes one command to a node; a node that has gone cannot read it.
func (lt *liveTrial) send(p *proc, c live.Command) {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil && !p.killed {
		lt.logf("node %d: command %s: %v", p.pos, c.Type, err)
	}
	switch c.Type {
	case "start", "initiate", "suspect":
		lt.proc(p.pos, func() { lt.expect[p.pos]++ }) // the node answers with a step
	}
}

func (lt *liveTrial) allLinked() bool {
	for pos, p := range lt.procs {
		if lt.alive[pos] && !p.linked {
			return false
		}
	}
	return true
}

// tailWriter copies a node's diagnostics to the log, prefixed, and keeps the
// last few lines for error messages.
type tailWriter struct {
	mu     sync.Mutex
	log    io.Writer
	prefix string
	buf    []byte
	lines  []string
}

func (w *tailWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i])
		w.buf = w.buf[i+1:]
		if w.log != nil {
			fmt.Fprintln(w.log, w.prefix+line)
		}
		w.lines = append(w.lines, line)
		if len(w.lines) > 5 {
			w.lines = w.lines[1:]
		}
	}
	return len(b), nil
}

// String is the last lines written, or what is pending.
func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.Join(append(slices.Clone(w.lines), string(w.buf)), " | ")
	if strings.TrimSpace(strings.Trim(s, "| ")) == "" {
		return "(no diagnostics)"
	}
	return s
}

// linkBusy reports whether link k (from*n+to) holds messages that will
// still be delivered.
func (lt *liveTrial) linkBusy(k int) bool {
	return !lt.gone[k%lt.n] && !lt.lossy[k] && lt.sentLink[k] != lt.recvLink[k]
}

// procBusy reports whether running process p has work pending.
func (lt *liveTrial) procBusy(p int) bool {
	return !lt.gone[p] && (lt.armed[p] > 0 || lt.expect[p] > 0)
}

// link applies change to link k's counts, keeping unsettledLinks right.
func (lt *liveTrial) link(k int, change func()) {
	if lt.linkBusy(k) {
		lt.unsettledLinks--
	}
	change()
	if lt.linkBusy(k) {
		lt.unsettledLinks++
	}
}

// proc applies change to process p's counts, keeping busyProcs right.
func (lt *liveTrial) proc(p int, change func()) {
	if lt.procBusy(p) {
		lt.busyProcs--
	}
	change()
	if lt.procBusy(p) {
		lt.busyProcs++
	}
}

// recount recomputes the settled bookkeeping after gone or lossy changed.
func (lt *liveTrial) recount() {
	lt.unsettledLinks, lt.busyProcs, lt.anyLossy = 0, 0, false
	for k := range lt.sentLink {
		if lt.linkBusy(k) {
			lt.unsettledLinks++
		}
		lt.anyLossy = lt.anyLossy || lt.lossy[k]
	}
	for p := range lt.n {
		if lt.procBusy(p) {
			lt.busyProcs++
		}
	}
}
