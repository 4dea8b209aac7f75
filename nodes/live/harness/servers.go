package harness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// servers are the Toxiproxy servers a runtime drives: the first embedded
// in the harness process or external (--toxiproxy), and, for a cluster
// whose proxies one process cannot hold (Servers), more of them, each a
// process of its own (`electbench toxiproxy-server`). A cluster's link
// a→b has its proxy on the server of b (serverOf), as docs/multi-host.md
// puts it on b's host.
//
// A server process is tied to the harness's life as a node is: it leads a
// process group of its own, the kernel kills it when the harness dies
// (nodeSysProcAttr), and it exits when its standard input closes. Its
// proxies and ports go with it.
type servers struct {
	clients  []*toxi.Client // by server; [0] the embedded or external one
	embedded *toxi.Server   // nil with an external Toxiproxy
	procs    []*serverProc  // of clients[1:]
}

// serverProc is one Toxiproxy server process.
type serverProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	tail   *tailWriter
}

// healthTimeout bounds a health check of Toxiproxy; closeHealthTimeout,
// the one of Close, which an interrupted run waits for.
const (
	healthTimeout      = 2 * time.Second
	closeHealthTimeout = 500 * time.Millisecond
)

// serverStartTimeout bounds the start of a server process, until it
// reports its URL and answers.
const serverStartTimeout = 30 * time.Second

// grow starts server processes (opt.Server) until there are k servers.
func (s *servers) grow(ctx context.Context, k int, opt *Options) error {
	for len(s.clients) < k {
		c, p, err := startServer(ctx, len(s.clients), opt)
		if err != nil {
			return err
		}
		s.clients, s.procs = append(s.clients, c), append(s.procs, p)
	}
	return nil
}

// startServer starts server process i (opt.Server) and returns its
// client once it answers.
func startServer(ctx context.Context, i int, opt *Options) (*toxi.Client, *serverProc, error) {
	cmd := exec.Command(opt.Server[0], opt.Server[1:]...)
	cmd.Env = append(cmd.Environ(), opt.Env...)
	cmd.SysProcAttr = nodeSysProcAttr()
	p := &serverProc{cmd: cmd, exited: make(chan struct{}), tail: &tailWriter{log: opt.Log, prefix: fmt.Sprintf("toxiproxy %d: ", i)}}
	cmd.Stderr = p.tail
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, fmt.Errorf("toxiproxy server %d's stdin: %w", i, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdin.Close()
		return nil, nil, fmt.Errorf("toxiproxy server %d's stdout: %w", i, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("starting toxiproxy server %q: %w", opt.Server[0], err)
	}
	p.stdin = stdin
	urls := make(chan string, 1)
	go func() {
		defer close(p.exited)
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			urls <- strings.TrimSpace(sc.Text())
		}
		close(urls)
		io.Copy(io.Discard, stdout)
		cmd.Wait()
	}()
	ctx, cancel := context.WithTimeout(ctx, serverStartTimeout)
	defer cancel()
	var url string
	select {
	case url = <-urls:
	case <-ctx.Done():
	}
	if url == "" {
		p.stop()
		return nil, nil, fmt.Errorf("toxiproxy server %d (pid %d) reported no URL: %s", i, cmd.Process.Pid, p.tail)
	}
	c := toxi.NewClient(url)
	if _, err := c.Version(ctx); err != nil {
		p.stop()
		return nil, nil, fmt.Errorf("toxiproxy server %d (pid %d): %w", i, cmd.Process.Pid, err)
	}
	return c, p, nil
}

// stop ends a server process and waits for it: its proxies go with it.
func (p *serverProc) stop() {
	p.stdin.Close()
	killGroup(p.cmd.Process.Pid)
	<-p.exited
}

// close stops the server processes and the embedded server.
func (s *servers) close() error {
	for _, p := range s.procs {
		p.stop()
	}
	s.clients, s.procs = s.clients[:1], nil
	if s.embedded != nil {
		return s.embedded.Close()
	}
	return nil
}

// down returns why the first server found unreachable was, or nil.
func (s *servers) down() error {
	for _, c := range s.clients {
		if err := c.Down(); err != nil {
			return err
		}
	}
	return nil
}

// check asks every server found down whether it answers again.
func (s *servers) check(ctx context.Context, d time.Duration) error {
	for _, c := range s.clients {
		if c.Down() != nil {
			if err := c.Check(ctx, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// urls are the servers' API endpoints; pids, the server processes'.
func (s *servers) urls() []string {
	out := make([]string, len(s.clients))
	for i, c := range s.clients {
		out[i] = c.URL()
	}
	return out
}

func (s *servers) pids() []int {
	out := make([]int, len(s.procs))
	for i, p := range s.procs {
		out[i] = p.cmd.Process.Pid
	}
	return out
}

// onEach runs f on each of clients at once, returning the errors joined.
func onEach(clients []*toxi.Client, f func(i int, c *toxi.Client) error) error {
	if len(clients) == 1 {
		return f(0, clients[0])
	}
	errs := make([]error, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { errs[i] = f(i, c) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
