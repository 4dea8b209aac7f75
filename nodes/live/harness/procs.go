package harness

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/pow"
)

// proc is one node process (one incarnation of a position).
type proc struct {
	idx   int // spawn index
	pos   int // ring position; -1 until assigned
	inc   int // incarnation of the position: restarts add one
	dir   string
	ctl   control
	stdin io.WriteCloser
	// stdout carries its control lines (readReports).
	stdout io.ReadCloser
	pid    int
	addr   string
	ident  *pow.Identity
	// eph and cert are the ephemeral key the node shows its peers and
	// its certificate, from its hello (procs.vouched).
	eph, cert []byte
	// challenge is the harness's, fresh for this process, which its
	// hello signs (live.ProveToHarness).
	challenge string
	// unproven is why the identity the node reported fails the cluster's
	// puzzle or its key's proof (the harness checks what it can check
	// itself); such a node takes no part. Only this excludes a node: a
	// peer's refusal is a dispute, its word (run.go, handle).
	unproven error
	linked   bool
	killed   bool // by the harness: its exit is expected
	exited   chan struct{}
	stopped  bool // answered stop with stats
	tail     *tailWriter
}

// control signals and reaps a node process: one this harness started
// (localProc), or one a host's agent runs for it (remoteProc, agents.go).
type control interface {
	kill()         // SIGKILL to its process group: a crash
	pause() error  // SIGSTOP to its group
	resume() error // SIGCONT to its group
	wait()         // until it has been reaped, once its output has ended
}

// localProc is a node process of this harness.
type localProc struct{ cmd *exec.Cmd }

func (l localProc) kill()         { killGroup(l.cmd.Process.Pid) }
func (l localProc) pause() error  { return pauseGroup(l.cmd.Process.Pid) }
func (l localProc) resume() error { return resumeGroup(l.cmd.Process.Pid) }
func (l localProc) wait()         { l.cmd.Wait() }

// remoteStarter is a placement whose hosts start the node processes
// themselves (agents.go): argv is the node's command line, env what is
// added to the host's environment, stderr receives its diagnostics. The
// host opens the node's listening socket on its own address, so the
// process's address is the host's word, not a socket of the harness's.
type remoteStarter interface {
	startRemote(idx, n int, argv, env []string, stderr io.Writer) (remote, error)
}

// remote is a node process a host started for the harness.
type remote struct {
	ctl    control
	stdin  io.WriteCloser
	stdout io.ReadCloser // its standard output's lines
	pid    int
	addr   string // where it listens
}

// nodeReport is one control line of a node, or the end of its output.
type nodeReport struct {
	p   *proc
	r   live.Report
	eof bool
	// at is when the agent of the node's host read the line, on that
	// host's CLOCK_MONOTONIC (ns), or 0 for a process of the harness's.
	// The trial keeps the node's own times, corrected at the source by
	// the host's estimated offset (clock.go); at is carried for what the
	// relay adds to a delay, which nothing reads yet.
	at int64
	// mono is when a synced line was read, on this host's monotonic
	// clock (live.Mono): the receipt of a clock reading (clock.go).
	mono int64
}

// stamped is a control whose lines its host stamps when read (remoteProc):
// stamp is the stamp of the line read last.
type stamped interface {
	stamp() int64
}

// procs are a trial's node processes, their pipes and every position's
// state: whether it runs, is paused, will not come back, was refused or is
// restarting. They are spawned, signalled, respawned and waited for here;
// what the trial makes of their reports is the coordinator's (run.go).
type procs struct {
	opt  *Options
	logf func(format string, args ...any)
	// dir holds the identities the nodes minted: the trial's, or the kept
	// cluster's while its processes are kept (warm.go); epoch is the
	// trial's among a kept cluster's processes (live.Config.Epoch): 0 on
	// processes of its own.
	dir   string
	epoch uint64
	byPos []*proc      // current incarnation by position (after assignment)
	ranks []nodes.Rank // the minted identities' ranks, by position
	// Every position's state, from positions on.
	alive, paused []bool
	gone          []bool // will not come back: crashed, refused, paused until the end
	refused       []bool
	restarting    map[int]bool
	all           []*proc // every process ever started
	reports       chan nodeReport
	done          chan struct{} // closed at teardown: unblocks readers and pending actions
	wg            sync.WaitGroup
	// spawnErr is the first failure to start a process: the host's, not
	// the algorithm's (Runtime.Run reports it as infrastructure).
	spawnErr error
	// health, set by spawnAll for an external Toxiproxy, says whether the
	// infrastructure the nodes need still answers; next asks it when the
	// nodes fall silent.
	health func(context.Context) error
	// hosts are where the nodes run.
	hosts onHosts
}

func newProcs(opt *Options, hosts onHosts, logf func(format string, args ...any)) *procs {
	return &procs{opt: opt, hosts: hosts, logf: logf, reports: make(chan nodeReport, 256), done: make(chan struct{}), restarting: map[int]bool{}}
}

// pids are the process ids of the nodes this harness runs itself, as
// this host numbers them (a host's agent runs the others).
func (ps *procs) pids() []int {
	var pids []int
	for _, p := range ps.all {
		if l, ok := p.ctl.(localProc); ok {
			pids = append(pids, l.cmd.Process.Pid)
		}
	}
	return pids
}

// positions gives every position its state once identities are assigned:
// running, unless its identity failed the cluster's puzzle.
func (ps *procs) positions() {
	n := len(ps.byPos)
	ps.alive, ps.paused, ps.gone, ps.refused = make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	for pos, p := range ps.byPos {
		ps.alive[pos] = true
		ps.refused[pos] = p.unproven != nil
	}
}

// spawnWorkers is how many node processes spawnAll starts at once.
const spawnWorkers = 8

// spawnAll starts a node process for every spawn index, spawnWorkers at
// a time, each on the kept cluster's listening socket of its index, and
// keeping its identity in the trial's directory. Every process that
// started is kept (and released at teardown), whatever failed.
func (ps *procs) spawnAll(n int, files []*os.File) error {
	// The trial's directory names its owner, so that a later run removes
	// it if this harness is killed before it can (RemoveDeadDirs).
	if err := claimDir(ps.dir); err != nil {
		return ps.spawnFailed(err)
	}
	started := make([]*proc, n)
	errs := make([]error, n)
	sem := make(chan struct{}, spawnWorkers)
	var wg sync.WaitGroup
	for i := range n {
		// A placement whose hosts open the nodes' sockets (remoteStarter)
		// gives the cluster none.
		var f *os.File
		if i < len(files) {
			f = files[i]
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			started[i], errs[i] = ps.startProc(i, filepath.Join(ps.dir, strconv.Itoa(i)), ps.opt.Forge[i], f)
		})
	}
	wg.Wait()
	var first error
	for i, p := range started {
		if p != nil {
			ps.add(p)
		} else if first == nil {
			first = ps.spawnFailed(errs[i])
		}
	}
	return first
}

// spawn starts a node process for spawn index idx keeping its identity in
// dir, listening on a socket of its own (a restart: its proxies are
// pointed at it, rewire).
func (ps *procs) spawn(idx int, dir, forge string) (*proc, error) {
	if err := claimDir(filepath.Dir(dir)); err != nil {
		return nil, ps.spawnFailed(err)
	}
	var ln *os.File
	if ps.hosts.restartsListen() {
		sock, err := ps.hosts.listen(idx, ps.hosts.n)
		if err != nil {
			return nil, ps.spawnFailed(fmt.Errorf("listening for node %d: %w", idx, err))
		}
		// The process holds its own copy once started.
		if ln, err = sock.File(); err != nil {
			sock.Close()
			return nil, ps.spawnFailed(fmt.Errorf("listening for node %d: %w", idx, err))
		}
		defer ln.Close()
		sock.Close()
	}
	p, err := ps.startProc(idx, dir, forge, ln)
	if err != nil {
		return nil, ps.spawnFailed(err)
	}
	ps.add(p)
	return p, nil
}

// startProc starts a node process for spawn index idx keeping its identity in
// dir, accepting its peers on ln if not nil (inherited as descriptor 3).
// It touches nothing of the trial's but reads: spawnAll runs several at
// once.
func (ps *procs) startProc(idx int, dir, forge string, ln *os.File) (*proc, error) {
	opt := ps.opt
	var nonce [16]byte
	rand.Read(nonce[:])
	challenge := hex.EncodeToString(nonce[:])
	args := append(slices.Clone(opt.Node[1:]), "--identity-dir", dir, "--bits", strconv.Itoa(ps.bits()), "--challenge", challenge)
	if forge != "" {
		args = append(args, "--forge", forge)
	}
	cmd := exec.Command(opt.Node[0], args...)
	if ln != nil {
		cmd.Args = append(cmd.Args, "--listen-fd", "3") // ExtraFiles[0]
		cmd.ExtraFiles = []*os.File{ln}
	}
	env := nodeEnv(os.Environ(), opt.Env)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = nodeSysProcAttr()
	p := &proc{idx: idx, pos: -1, dir: dir, challenge: challenge, exited: make(chan struct{}), tail: &tailWriter{log: opt.Log, prefix: fmt.Sprintf("node %d: ", idx)}}
	if rs, ok := ps.hosts.placement.(remoteStarter); ok {
		r, err := rs.startRemote(idx, ps.hosts.n, cmd.Args, env, p.tail)
		if err != nil {
			return nil, fmt.Errorf("starting node process %d: %w", idx, err)
		}
		p.ctl, p.stdin, p.stdout, p.pid, p.addr = r.ctl, r.stdin, r.stdout, r.pid, r.addr
		return p, nil
	}
	cmd.Stderr = p.tail
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("node process %d's stdin: %w", idx, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return nil, fmt.Errorf("node process %d's stdout: %w", idx, err)
	}
	if err := ps.hosts.start(idx, ps.hosts.n, cmd); err != nil {
		return nil, fmt.Errorf("starting node process %q: %w", opt.Node[0], err)
	}
	p.ctl, p.stdin, p.pid, p.stdout = localProc{cmd}, stdin, cmd.Process.Pid, stdout
	return p, nil
}

// NodeGOGC is the garbage collector's setting of a node process, unless
// the harness's environment or Options.Env sets GOGC: a node's live heap
// is a few MB, so at the default (a 4 MB first goal) it collected during
// its start and again while it linked, on cores the whole cluster's
// set-up shares, some 0.7 CPU-s of a 64-node set-up (DECISIONS, "A node
// process collects at GOGC 400").
const NodeGOGC = "400"

// nodeEnv is what a node process's environment adds to the harness's
// (own): the options' (extra), and NodeGOGC when neither sets GOGC.
func nodeEnv(own, extra []string) []string {
	for _, kv := range slices.Concat(own, extra) {
		if strings.HasPrefix(kv, "GOGC=") {
			return extra
		}
	}
	return append(slices.Clip(extra), "GOGC="+NodeGOGC)
}

// add takes a started process into the trial: its reports are read from
// now on.
func (ps *procs) add(p *proc) {
	ps.all = append(ps.all, p)
	ps.wg.Add(1)
	go ps.readReports(p, p.stdout)
}

// spawnFailed notes err as the trial's first spawn failure and returns it.
func (ps *procs) spawnFailed(err error) error {
	if ps.spawnErr == nil {
		ps.spawnErr = err
	}
	return err
}

func (ps *procs) bits() int {
	if ps.opt.Bits > 0 {
		return ps.opt.Bits
	}
	return live.DefaultBits
}

// puzzle is the cluster's puzzle, the one every node mints with and
// requires of its peers.
func (ps *procs) puzzle() pow.Params { return live.IdentityParams(ps.bits()) }

// readReports forwards a node's control lines to the trial, then reaps it.
func (ps *procs) readReports(p *proc, stdout io.Reader) {
	defer ps.wg.Done()
	defer close(p.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	st, _ := p.ctl.(stamped)
	for sc.Scan() {
		r, err := live.ParseReport(sc.Bytes())
		if err != nil {
			r = live.Report{Type: "error", Error: fmt.Sprintf("unreadable control line %q: %v", sc.Text(), err)}
		}
		rep := nodeReport{p: p, r: r}
		if st != nil {
			rep.at = st.stamp()
		}
		if r.Type == "synced" {
			rep.mono = live.Mono()
		}
		select {
		case ps.reports <- rep:
		case <-ps.done:
		}
	}
	io.Copy(io.Discard, stdout)
	p.ctl.wait()
	select {
	case ps.reports <- nodeReport{p: p, eof: true}:
	case <-ps.done:
	}
}

// idleCheck is how long next waits for a report before it asks whether
// the infrastructure still answers.
const idleCheck = 3 * time.Second

// next waits for the next report. When none comes for idleCheck it checks
// health: nodes that cannot link through a stopped Toxiproxy would
// otherwise be waited for until the whole setup timeout.
func (ps *procs) next(ctx context.Context) (nodeReport, error) {
	var idle <-chan time.Time
	if ps.health != nil {
		t := time.NewTicker(idleCheck)
		defer t.Stop()
		idle = t.C
	}
	for {
		select {
		case r := <-ps.reports:
			return r, nil
		case <-ctx.Done():
			return nodeReport{}, ctx.Err()
		case <-idle:
			if err := ps.health(ctx); err != nil {
				return nodeReport{}, err
			}
		}
	}
}

// write sends one command to a node; a node that has gone cannot read it.
// What the trial expects back is the caller's (liveTrial.command).
func (ps *procs) write(p *proc, c live.Command) {
	b, err := json.Marshal(c)
	if err != nil {
		panic(err)
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil && !p.killed {
		ps.logf("node %d: command %s: %v", p.pos, c.Type, err)
	}
}

// kill is a crash: SIGKILL to the process's group.
func (ps *procs) kill(p *proc) {
	if !p.killed {
		p.killed = true
		p.ctl.kill()
	}
}

// down SIGKILLs position p's process: it runs no more and will not come
// back unless restarted.
func (ps *procs) down(p int) {
	ps.kill(ps.byPos[p])
	ps.alive[p], ps.gone[p] = false, true
}

// pause stops position p's process (SIGSTOP): while paused it counts as
// gone.
func (ps *procs) pause(p int) error {
	if err := ps.byPos[p].ctl.pause(); err != nil {
		return err
	}
	ps.paused[p], ps.gone[p] = true, true
	return nil
}

// resume continues position p's paused process (SIGCONT).
func (ps *procs) resume(p int) {
	ps.byPos[p].ctl.resume()
	ps.paused[p] = false
	ps.gone[p] = !ps.alive[p] || ps.restarting[p]
}

// respawn starts position p again with its identity; the caller's rewire
// and the "linked" report finish the job. A failure ends the restart.
func (ps *procs) respawn(p int) error {
	old := ps.byPos[p]
	np, err := ps.spawn(old.idx, old.dir, "")
	if err != nil {
		delete(ps.restarting, p)
		return err
	}
	np.pos, np.inc, np.ident = p, old.inc+1, old.ident
	ps.byPos[p] = np
	return nil
}

// restarted notes that position p's new process is up and linked.
func (ps *procs) restarted(p int) {
	delete(ps.restarting, p)
	ps.gone[p], ps.alive[p] = false, true
}

// current reports whether p is its position's current process.
func (ps *procs) current(p *proc) bool { return p.pos >= 0 && ps.byPos[p.pos] == p }

// stopWait bounds how long stopped nodes have to report their stats.
const stopWait = 5 * time.Second

// release kills every process, closes its pipes and waits for the
// readers: the end of a trial's processes, or of those a cluster kept.
func (ps *procs) release() {
	for _, p := range ps.all {
		if !p.killed {
			p.killed = true
			p.ctl.kill()
		}
		p.stdin.Close()
	}
	close(ps.done)
	ps.wg.Wait()
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

// hello takes a node's hello: its address and identity, once its registry
// is found to number kinds and timers as the harness's does.
func (ps *procs) hello(p *proc, r *live.Report) error {
	if err := live.CheckRegistry(r.Kinds, r.Timers); err != nil {
		return fmt.Errorf("node %d (%s) refused: %w", p.idx, strings.Join(ps.opt.Node, " "), err)
	}
	if r.Control != live.ControlVersion {
		return fmt.Errorf("node %d (%s) refused: it speaks version %d of the control channel, this harness %d: the node must be this very binary",
			p.idx, strings.Join(ps.opt.Node, " "), r.Control, live.ControlVersion)
	}
	id, err := pow.Decode([]byte(r.Identity))
	if err != nil {
		return fmt.Errorf("node %d: its identity does not decode: %w", p.idx, err)
	}
	p.ident, p.addr, p.eph, p.cert = id, r.Addr, r.Eph, r.Cert
	// The harness checks every reported identity itself (proof of work
	// and key/id binding) under the cluster's puzzle, that the node
	// holds its key (its signature over this process's challenge) and
	// that the key certified the ephemeral key it shows its peers, rather
	// than take anyone's word for it.
	p.unproven = nil
	if err := pow.PolicyFor(ps.puzzle()).Verify(id); err != nil {
		p.unproven = err
		ps.logf("node %d: its identity fails the cluster's puzzle: %v", p.idx, err)
	} else if err := live.CheckHarnessProof(id, p.challenge, r.Proof); err != nil {
		p.unproven = err
		ps.logf("node %d: %v", p.idx, err)
	} else if err := live.VerifyCertificate(id, r.Eph, r.Cert); err != nil {
		p.unproven = fmt.Errorf("the certificate of its ephemeral key does not verify under identity %s: %w", id.ID, err)
		ps.logf("node %d: %v", p.idx, p.unproven)
	}
	return nil
}

// vouched are, by position, the identity files of the processes whose
// identity the harness checked itself (hello): their puzzle solves the
// cluster's, their key signed its challenge and certified their ephemeral
// key; and beside them those ephemeral keys with their certificates
// (live.VouchedCert). A position whose check failed, or whose identity
// does not encode, has "" in both. Their peers verify none of them again
// (live.Config.Vouched, VouchedCerts).
func (ps *procs) vouched() (files, certs []string) {
	files, certs = make([]string, len(ps.byPos)), make([]string, len(ps.byPos))
	for pos, p := range ps.byPos {
		if p == nil || p.ident == nil || p.unproven != nil {
			continue
		}
		if b, err := pow.Encode(p.ident); err == nil {
			files[pos], certs[pos] = string(b), live.VouchedCert(p.eph, p.cert)
		}
	}
	return files, certs
}

// assign hands identities out to positions by rank order: the minted
// identities take the places of ranks (the trial's arrangement), so
// relative ranks are the arrangement's.
func (ps *procs) assign(ranks *nodes.Ranks) error {
	n := ranks.Len()
	byRank := slices.Clone(ps.all)
	slices.SortFunc(byRank, func(a, b *proc) int { return a.ident.ID.Compare(b.ident.ID) })
	for i := 1; i < n; i++ {
		if byRank[i].ident.ID == byRank[i-1].ident.ID {
			return fmt.Errorf("nodes %d and %d show the same identity %s", byRank[i-1].idx, byRank[i].idx, byRank[i].ident.ID)
		}
	}
	positions := make([]int, n)
	for i := range positions {
		positions[i] = i
	}
	slices.SortFunc(positions, ranks.Cmp)
	ps.byPos = make([]*proc, n)
	ps.ranks = make([]nodes.Rank, n)
	for k, pos := range positions {
		p := byRank[k]
		p.pos = pos
		ps.byPos[pos] = p
		ps.ranks[pos] = p.ident.Rank()
	}
	return nil
}
