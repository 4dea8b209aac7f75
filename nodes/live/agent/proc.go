package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
)

// maxLine is the longest line relayed whole; the harness reads node lines
// of up to 16 MiB (procs.go).
const maxLine = 16 << 20

// proc is a process the agent started.
type proc struct {
	id    uint32
	cmd   *exec.Cmd
	mu    sync.Mutex // guards stdin
	stdin io.WriteCloser
}

// start starts the process m asks for, relaying its output and exit.
func (a *Agent) start(m *Msg) error {
	if len(m.Args) == 0 {
		return fmt.Errorf("agent: process %d: no command", m.ID)
	}
	p := &proc{id: m.ID, cmd: exec.Command(m.Args[0], m.Args[1:]...)}
	a.mu.Lock()
	dup := a.procs[m.ID] != nil
	a.mu.Unlock()
	if dup {
		return fmt.Errorf("agent: process %d already runs", m.ID)
	}
	addr, out, err := p.start(m)
	if err != nil {
		return err
	}
	// Only a started process is listed, so that killAll (the grace
	// period's, from another goroutine) never meets one without a pid;
	// Starts come one at a time from the one controller's loop, so the
	// number stays free meanwhile.
	a.mu.Lock()
	a.procs[m.ID] = p
	a.mu.Unlock()
	// Started goes before the relay begins: the controller learns of the
	// process before any of its lines.
	a.send(&Msg{Kind: Started, ID: m.ID, Code: int32(p.cmd.Process.Pid), Addr: addr, At: now()})
	go a.relay(p, out)
	return nil
}

// start starts p's command as m asks, listening on m.Addr first if given
// (the socket is the process's descriptor 3, "--listen-fd 3" appended to
// its arguments, as the harness hands a node its socket); it returns the
// socket's address and the process's standard output and error.
func (p *proc) start(m *Msg) (string, [2]io.Reader, error) {
	var out [2]io.Reader
	cmd := p.cmd
	cmd.Env = append(os.Environ(), m.Env...)
	cmd.SysProcAttr = sysProcAttr()
	var addr string
	if m.Addr != "" {
		ln, err := net.Listen("tcp", net.JoinHostPort(m.Addr, "0"))
		if err != nil {
			return "", out, fmt.Errorf("agent: process %d: listening on %s: %w", m.ID, m.Addr, err)
		}
		f, err := ln.(*net.TCPListener).File()
		ln.Close()
		if err != nil {
			return "", out, fmt.Errorf("agent: process %d: its socket: %w", m.ID, err)
		}
		defer f.Close() // the process holds its own copy once started
		addr = ln.Addr().String()
		cmd.ExtraFiles = []*os.File{f}
		cmd.Args = append(cmd.Args, "--listen-fd", "3")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", out, fmt.Errorf("agent: process %d's stdin: %w", m.ID, err)
	}
	if out[0], err = cmd.StdoutPipe(); err != nil {
		return "", out, fmt.Errorf("agent: process %d's stdout: %w", m.ID, err)
	}
	if out[1], err = cmd.StderrPipe(); err != nil {
		return "", out, fmt.Errorf("agent: process %d's stderr: %w", m.ID, err)
	}
	if err := cmd.Start(); err != nil {
		return "", out, fmt.Errorf("agent: starting process %d (%q): %w", m.ID, m.Args[0], err)
	}
	p.stdin = stdin
	return addr, out, nil
}

// relay sends p's output lines, stamped on the agent's clock when read,
// then its exit, and forgets it.
func (a *Agent) relay(p *proc, out [2]io.Reader) {
	var wg sync.WaitGroup
	for i, r := range out {
		wg.Go(func() { a.scanLines(p, r, int32(i+1)) })
	}
	wg.Wait()
	p.cmd.Wait()
	p.closeStdin()
	a.mu.Lock()
	delete(a.procs, p.id)
	a.mu.Unlock()
	a.send(&Msg{Kind: Exited, ID: p.id, At: now(), Code: int32(p.cmd.ProcessState.ExitCode())})
}

// write writes data to p's standard input.
func (p *proc) write(data []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdin == nil {
		return fmt.Errorf("agent: process %d's stdin is closed", p.id)
	}
	if _, err := p.stdin.Write(data); err != nil {
		return fmt.Errorf("agent: writing to process %d: %w", p.id, err)
	}
	return nil
}

func (p *proc) closeStdin() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdin == nil {
		return nil
	}
	err := p.stdin.Close()
	p.stdin = nil
	if err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("agent: closing process %d's stdin: %w", p.id, err)
	}
	return nil
}

// scanLines sends each line of r as a Line of p with stream code.
func (a *Agent) scanLines(p *proc, r io.Reader, stream int32) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		a.send(&Msg{Kind: Line, ID: p.id, At: now(), Code: stream, Data: sc.Bytes()})
	}
	if err := sc.Err(); err != nil {
		a.send(&Msg{Kind: Fail, ID: p.id, Data: fmt.Appendf(nil, "agent: process %d's output %d: %v; the rest is dropped", p.id, stream, err)})
	}
	io.Copy(io.Discard, r)
}
