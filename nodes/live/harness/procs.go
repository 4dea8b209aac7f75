package harness

import (
	"bufio"
	"context"
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

	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/pow"
)

// proc is one node process (one incarnation of a position).
type proc struct {
	idx   int // spawn index
	pos   int // ring position; -1 until assigned
	inc   int // incarnation of the position: restarts add one
	dir   string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// stdout carries its control lines (readReports).
	stdout io.ReadCloser
	pid    int
	addr   string
	ident  *pow.Identity
	// unproven is why the identity the node reported fails the cluster's
	// puzzle (the harness checks what it can check itself); such a node
	// takes no part, as one its peers refused.
	unproven error
	linked   bool
	killed   bool // by the harness: its exit is expected
	exited   chan struct{}
	stopped  bool // answered stop with stats
	tail     *tailWriter
}

// nodeReport is one control line of a node, or the end of its output.
type nodeReport struct {
	p   *proc
	r   live.Report
	eof bool
}

// procs are a trial's node processes and their pipes.
type procs struct {
	byPos   []*proc // current incarnation by position (after assignment)
	all     []*proc // every process ever started
	reports chan nodeReport
	done    chan struct{} // closed at teardown: unblocks readers and pending actions
	wg      sync.WaitGroup
	// spawnErr is the first failure to start a process: the host's, not
	// the algorithm's (Runtime.Run reports it as infrastructure).
	spawnErr error
	// health, set by spawnAll for an external Toxiproxy, says whether the
	// infrastructure the nodes need still answers; next asks it when the
	// nodes fall silent.
	health func(context.Context) error
}

func newProcs() *procs {
	return &procs{reports: make(chan nodeReport, 256), done: make(chan struct{})}
}

// spawnWorkers is how many node processes spawnAll starts at once.
const spawnWorkers = 8

// spawnAll starts a node process for every spawn index, spawnWorkers at
// a time, each on the kept cluster's listening socket of its index, and
// keeping its identity in the trial's directory. Every process that
// started is kept (and released at teardown), whatever failed.
func (lt *liveTrial) spawnAll() error {
	n := lt.n
	// The trial's directory names its owner, so that a later run removes
	// it if this harness is killed before it can (RemoveDeadDirs).
	if err := claimDir(lt.dir); err != nil {
		return lt.procs.spawnFailed(err)
	}
	if lt.r.srv.embedded == nil {
		// Only an external server can stop while the harness runs. The
		// embedded one is this process: under load (thousands of
		// connections in their handshakes at once, on a busy host) it
		// answers late, and a late answer is no failure of the
		// infrastructure.
		lt.procs.health = func(ctx context.Context) error { return lt.r.srv.clients[0].Check(ctx, healthTimeout) }
	}
	started := make([]*proc, n)
	errs := make([]error, n)
	sem := make(chan struct{}, spawnWorkers)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			started[i], errs[i] = lt.startProc(i, filepath.Join(lt.dir, strconv.Itoa(i)), lt.r.opt.Forge[i], lt.r.kept.files[i])
		})
	}
	wg.Wait()
	var first error
	for i, p := range started {
		if p != nil {
			lt.procs.add(p)
		} else if first == nil {
			first = lt.procs.spawnFailed(errs[i])
		}
	}
	return first
}

// spawn starts a node process for spawn index idx keeping its identity in
// dir, listening on a socket of its own (a restart: its proxies are
// pointed at it, rewire).
func (lt *liveTrial) spawn(idx int, dir, forge string) (*proc, error) {
	if err := claimDir(filepath.Dir(dir)); err != nil {
		return nil, lt.procs.spawnFailed(err)
	}
	p, err := lt.startProc(idx, dir, forge, nil)
	if err != nil {
		return nil, lt.procs.spawnFailed(err)
	}
	lt.procs.add(p)
	return p, nil
}

// startProc starts a node process for spawn index idx keeping its identity in
// dir, accepting its peers on ln if not nil (inherited as descriptor 3).
// It touches nothing of the trial's but reads: spawnAll runs several at
// once.
func (lt *liveTrial) startProc(idx int, dir, forge string, ln *os.File) (*proc, error) {
	opt := lt.r.opt
	args := append(slices.Clone(opt.Node[1:]), "--identity-dir", dir, "--bits", strconv.Itoa(lt.bits()))
	if forge != "" {
		args = append(args, "--forge", forge)
	}
	cmd := exec.Command(opt.Node[0], args...)
	if ln != nil {
		cmd.Args = append(cmd.Args, "--listen-fd", "3") // ExtraFiles[0]
		cmd.ExtraFiles = []*os.File{ln}
	}
	cmd.Env = append(os.Environ(), opt.Env...)
	cmd.SysProcAttr = nodeSysProcAttr()
	p := &proc{idx: idx, pos: -1, dir: dir, cmd: cmd, exited: make(chan struct{}), tail: &tailWriter{log: opt.Log, prefix: fmt.Sprintf("node %d: ", idx)}}
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
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting node process %q: %w", opt.Node[0], err)
	}
	p.stdin, p.pid, p.stdout = stdin, cmd.Process.Pid, stdout
	return p, nil
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

func (lt *liveTrial) bits() int {
	if lt.r.opt.Bits > 0 {
		return lt.r.opt.Bits
	}
	return live.DefaultBits
}

// readReports forwards a node's control lines to the trial, then reaps it.
func (ps *procs) readReports(p *proc, stdout io.Reader) {
	defer ps.wg.Done()
	defer close(p.exited)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		r, err := live.ParseReport(sc.Bytes())
		if err != nil {
			r = live.Report{Type: "error", Error: fmt.Sprintf("unreadable control line %q: %v", sc.Text(), err)}
		}
		select {
		case ps.reports <- nodeReport{p: p, r: r}:
		case <-ps.done:
		}
	}
	io.Copy(io.Discard, stdout)
	p.cmd.Wait()
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
		lt.busy(p.pos, func() { lt.expect[p.pos]++ }) // the node answers with a step
	}
	if c.Type == "start" {
		lt.clockStarts(p, lt.now())
	}
}

// kill is a crash: SIGKILL to the process's group.
func (lt *liveTrial) kill(p *proc) {
	if !p.killed {
		p.killed = true
		killGroup(p.pid)
	}
}

// respawn starts position p again with its identity, and reports whether
// it could; rewire and the "linked" report finish the job.
func (lt *liveTrial) respawn(p int) bool {
	old := lt.procs.byPos[p]
	np, err := lt.spawn(old.idx, old.dir, "")
	if err != nil {
		lt.fail("restarting node %d: %v", p, err)
		delete(lt.restarting, p)
		return false
	}
	np.pos, np.inc, np.ident = p, old.inc+1, old.ident
	lt.procs.byPos[p] = np
	return true
}

// stopWait bounds how long stopped nodes have to report their stats.
const stopWait = 5 * time.Second

// stopAll ends every process: those that run are asked to stop (and
// report their stats, within a bound), then every one is killed and its
// pipes closed, and the readers are waited for. An interrupted trial
// (its context ended: Ctrl-C) is not asked: its record is not kept, and
// the run must end at once.
func (lt *liveTrial) stopAll() {
	running := 0
	for pos, p := range lt.procs.byPos {
		if lt.ctx.Err() != nil {
			break
		}
		if p != nil && !p.killed && lt.alive != nil && lt.alive[pos] {
			if lt.paused[pos] {
				resumeGroup(p.pid)
			}
			lt.send(p, live.Command{Type: "stop"})
			running++
		}
	}
	wait := time.NewTimer(stopWait)
	for running > 0 {
		select {
		case rep := <-lt.procs.reports:
			lt.handle(rep)
			if rep.eof && !rep.p.killed {
				running--
			}
		case <-wait.C:
			running = 0
		}
	}
	wait.Stop()
	lt.procs.release()
}

// release kills every process, closes its pipes and waits for the
// readers: the end of a trial's processes, or of those a cluster kept.
func (ps *procs) release() {
	for _, p := range ps.all {
		if !p.killed {
			p.killed = true
			killGroup(p.pid)
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
