package external

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MaxLine bounds a line a node writes (NODE-PROTOCOL.md, "Mistakes").
const MaxLine = 1 << 20

// stopGrace is how long a node has to exit once its standard input is
// closed before it is killed (NODE-PROTOCOL.md, "the end of a run").
const stopGrace = time.Second

// process is one running node program: its standard input and output as
// pipes the adapter reads with a deadline (the step timeout), its standard
// error kept as a tail for error messages.
type process struct {
	cmd     *exec.Cmd
	in      *os.File // the write end of the program's standard input
	w       *bufio.Writer
	out     *os.File // the read end of its standard output
	r       *bufio.Reader
	line    []byte // the line being read, when longer than r's buffer
	stderr  *tail
	errOut  *os.File      // the read end of its standard error, copied to stderr
	errDone chan struct{} // closed once errOut has reached its end
	pipes   []uint64      // the inodes of its three pipes, to find who holds them
	timeout time.Duration
	exited  chan struct{} // closed once Wait has returned
	waitErr error         // Wait's result, once exited is closed
	stopped sync.Once
	// reuse is what its last init_ok declared: it may be kept for another
	// trial (pool.go); keep, that its trial keeps it.
	reuse, keep bool
	idleTimer   *time.Timer // stops it while kept idle
	budget      budget      // the step in progress's (budget.go)
	// sched is its own task's schedstat, read at each step's start
	// (budget.go); begun, that it has had a step.
	sched *os.File
	begun bool
}

// spawn starts argv with its standard input, output and error as pipes.
// The child dies with the harness (Pdeathsig on Linux, procattr_*.go) and
// runs in a process group of its own, so that stopping it reaches what it
// started and a Ctrl-C at the terminal reaches only the harness, which
// stops it. Its standard error is a pipe the adapter reads itself, not an
// io.Writer that exec copies: Wait would then wait for the copy, that is
// for every process holding the pipe, a grandchild's whole life.
func spawn(argv []string, dir string, timeout time.Duration) (*process, error) {
	if len(argv) == 0 {
		return nil, errors.New("empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = procAttr()
	var ends [6]*os.File // read, write of stdin, stdout, stderr
	for i := 0; i < len(ends); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ends[:i])
			return nil, fmt.Errorf("pipe: %w", err)
		}
		ends[i], ends[i+1] = r, w
	}
	p := &process{cmd: cmd, in: ends[1], out: ends[2], errOut: ends[4], stderr: &tail{}, timeout: timeout,
		exited: make(chan struct{}), errDone: make(chan struct{})}
	p.pipes = []uint64{inode(ends[0]), inode(ends[2]), inode(ends[4])}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = ends[0], ends[3], ends[5]
	err := cmd.Start()
	closeAll([]*os.File{ends[0], ends[3], ends[5]})
	if err != nil {
		closeAll([]*os.File{ends[1], ends[2], ends[4]})
		return nil, fmt.Errorf("start %s: %w", strings.Join(argv, " "), err)
	}
	p.stderr.name(fmt.Sprintf("%s pid %d: ", filepath.Base(argv[0]), cmd.Process.Pid))
	go func() {
		io.Copy(p.stderr, p.errOut)
		close(p.errDone)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		// What the program started in its process group goes with it, at
		// once: the group's id cannot have been reused by another process
		// in the instant since the reaping. Only when the kill reached
		// someone is /proc read, to wait for them to be gone.
		pid := cmd.Process.Pid
		if killGroup(pid) == nil {
			waitGone(group(pid), time.Now().Add(stopGrace))
		}
		close(p.exited)
	}()
	p.w = bufio.NewWriterSize(p.in, 16<<10)
	p.r = bufio.NewReaderSize(p.out, 16<<10)
	running.Lock()
	running.procs[p] = struct{}{}
	running.Unlock()
	spawned.Add(1)
	return p, nil
}

// running are the programs spawned and not yet stopped, for Interrupt.
var running = struct {
	sync.Mutex
	procs map[*process]struct{}
}{procs: map[*process]struct{}{}}

// Interrupt ends every step in progress at once, as if its step timeout
// had passed: the command line calls it on Ctrl-C, whose trials are
// abandoned, so that a program stuck in a step does not hold the run for
// up to its step timeout (the simulator looks at the interrupt only
// between steps). Steps begun afterwards have their usual timeout.
func Interrupt() {
	interrupts.Add(1)
	running.Lock()
	defer running.Unlock()
	now := time.Now()
	for p := range running.procs {
		p.out.SetReadDeadline(now)
		p.in.SetWriteDeadline(now)
	}
}

// errTimeout is a step that did not end within the step timeout.
var errTimeout = errors.New("step timeout")

// errLong is a line longer than MaxLine.
var errLong = errors.New("line too long")

// send writes one input line (without its newline) and flushes it.
func (p *process) send(line []byte) error {
	p.in.SetWriteDeadline(time.Now().Add(p.timeout))
	p.w.Write(line)
	p.w.WriteByte('\n')
	if err := p.w.Flush(); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return errTimeout
		}
		return err
	}
	return nil
}

// readLine returns the next output line of the step begun by startBudget
// without its newline; the slice is valid until the next call. io.EOF
// means the program closed its output (it exited); errTimeout or
// errStartup, that the step went past its budget (budget.go); errLong, a
// line longer than MaxLine (its first bytes are returned).
func (p *process) readLine() ([]byte, error) {
	p.line = p.line[:0]
	for {
		b, err := p.r.ReadSlice('\n')
		if err == nil {
			if len(p.line) == 0 {
				return trimEOL(b), nil
			}
			p.line = append(p.line, b...)
			if len(p.line) > MaxLine+1 {
				return p.line[:200], errLong
			}
			return trimEOL(p.line), nil
		}
		if err == bufio.ErrBufferFull {
			p.line = append(p.line, b...)
			if len(p.line) > MaxLine {
				return p.line[:200], errLong
			}
			continue
		}
		p.line = append(p.line, b...)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if err := p.more(); err != nil {
				return p.line, err
			}
			continue
		}
		if len(p.line) > 0 && err == io.EOF {
			// A last line without its newline: the program exited
			// mid-line.
			return p.line, io.ErrUnexpectedEOF
		}
		return p.line, err
	}
}

func trimEOL(b []byte) []byte {
	b = b[:len(b)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// exitStatus waits a little for a program whose output ended to exit, and
// describes how it did, with the tail of its standard error.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
		p.kill()
	}
	<-p.exited
	// The last lines of its standard error may still be in the pipe; a
	// process that left its group and holds the pipe must not keep the
	// error message waiting, hence the bound.
	select {
	case <-p.errDone:
	case <-time.After(sweepWait):
	}
	var st string
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		st = "exited with status 0"
	case errors.As(p.waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			st = "was killed by signal " + ws.Signal().String()
		} else {
			st = fmt.Sprintf("exited with status %d", ee.ExitCode())
		}
	default:
		st = "ended: " + p.waitErr.Error()
	}
	if t := p.stderr.last(3); t != "" {
		st += "; stderr: " + t
	} else {
		st += "; stderr empty"
	}
	return st
}

// closeInput closes the program's standard input, which asks it to exit.
func (p *process) closeInput() { p.stopped.Do(func() { p.in.Close() }) }

// stop ends the program: its standard input is closed, and it is killed
// (with its process group) if it has not exited by the deadline. It
// returns once the program is reaped. Safe to call more than once.
func (p *process) stop(deadline time.Time) {
	p.closeInput()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-p.exited:
	case <-t.C:
		p.kill()
	}
	<-p.exited
	p.sweep()
	running.Lock()
	delete(running.procs, p)
	running.Unlock()
	p.out.Close()
	p.errOut.Close()
	if p.sched != nil {
		p.sched.Close()
	}
}

// kill sends SIGKILL to the program, its process group and every process
// descending from it, found before the program dies and its children are
// reparented.
func (p *process) kill() {
	if p.cmd.Process == nil {
		return
	}
	pid := p.cmd.Process.Pid
	select {
	case <-p.exited:
	default:
		killAll(strays(pid, nil))
	}
	killGroup(pid)
	p.cmd.Process.Kill()
}

// sweepWait is how long the program's output and error pipes may stay
// open after it has been reaped before the processes holding them are
// looked for: they close at once when nothing of the program is left.
const sweepWait = 50 * time.Millisecond

// sweep ends what is left of a reaped program: a process that left its
// process group (setsid) and still holds its standard output or error is
// killed, and waited for until it has gone, then the rest of its standard
// error is logged.
func (p *process) sweep() {
	p.out.SetReadDeadline(time.Now().Add(sweepWait))
	_, err := io.Copy(io.Discard, p.out)
	held := err != nil // a deadline: someone still holds the write end
	select {
	case <-p.errDone:
	case <-time.After(sweepWait):
		held = true
	}
	if held {
		left := strays(0, p.pipes)
		killAll(left)
		waitGone(left, time.Now().Add(stopGrace))
	}
	select {
	case <-p.errDone:
	case <-time.After(stopGrace):
	}
}

// waitGone waits until every process in pids has ended, or the deadline:
// they are not the harness's children, so they cannot be waited for.
func waitGone(pids []int, deadline time.Time) {
	for _, pid := range pids {
		for !gone(pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// killAll sends SIGKILL to every process in pids.
func killAll(pids []int) {
	for _, pid := range pids {
		killPid(pid)
	}
}

// closeAll closes every file in fs.
func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// The run's log of node programs' standard error (SetLog): every line,
// prefixed with the algorithm and the node.
var (
	logMu  sync.Mutex
	logOut io.Writer
)

// SetLog sends every line node programs write on their standard error to
// w, prefixed with the algorithm and the node's name ("cr-py n3: ..."); nil
// keeps only each program's tail, for error messages. The command line
// points it at DIR/nodes.log; a live node process, at its own standard
// error, which the harness keeps in DIR/live.log.
func SetLog(w io.Writer) {
	logMu.Lock()
	defer logMu.Unlock()
	logOut = w
}

// tail keeps the last bytes a program wrote on its standard error, and
// copies its lines to the run's log (SetLog).
type tail struct {
	mu      sync.Mutex
	buf     []byte
	prefix  string // "alg node: ", or "alg pid N: " before init
	pending []byte // a line not yet ended
	logged  int    // bytes copied to the run's log, against MaxLogBytes
}

const tailSize = 4 << 10

// MaxLogBytes bounds what one program's standard error adds to the run's
// log (NODE-PROTOCOL.md, "Standard error"): past it the program's lines are
// no longer logged, once a line says so, and only its tail is kept, for
// error messages. A program writing without end would otherwise fill the
// disk (nodes.log grew 3.5 GB in 16 s, issue 39).
const MaxLogBytes = 4 << 20

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	logMu.Lock()
	defer logMu.Unlock()
	if logOut == nil || t.logged > MaxLogBytes {
		return len(b), nil
	}
	t.pending = append(t.pending, b...)
	for {
		i := bytes.IndexByte(t.pending, '\n')
		if i < 0 {
			break
		}
		t.log(t.pending[:i+1])
		t.pending = t.pending[i+1:]
	}
	if len(t.pending) > tailSize { // a line that never ends: log it in pieces
		t.log(append(t.pending, '\n'))
		t.pending = t.pending[:0]
	}
	if t.logged > MaxLogBytes {
		t.pending = nil
	}
	return len(b), nil
}

// log copies one line to the run's log, or the notice that the program's
// share of it is used up. logMu is held.
func (t *tail) log(line []byte) {
	if t.logged > MaxLogBytes {
		return
	}
	t.logged += len(line)
	if t.logged > MaxLogBytes {
		line = fmt.Appendf(nil, "standard error past %d bytes: the rest is not logged\n", MaxLogBytes)
	}
	logOut.Write(append([]byte(t.prefix), line...))
}

// name sets the prefix of the program's lines in the run's log.
func (t *tail) name(prefix string) {
	t.mu.Lock()
	t.prefix = prefix
	t.mu.Unlock()
}

// last returns the last n non-empty lines, joined by " | " and cut to
// 300 bytes.
func (t *tail) last(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	s := string(bytes.Join(lines, []byte(" | ")))
	return cut(s, 300)
}

// cut shortens s to at most n bytes, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
