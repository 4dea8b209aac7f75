package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
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
//
// With a server per host (a hostServers placement: --netns, and agents,
// whose servers their agents start), clients[1:] are the hosts' servers,
// by host, started with the runtime: every cluster's proxies are on them,
// none on the first.
type servers struct {
	clients  []*toxi.Client // by server; [0] the embedded or external one
	embedded *toxi.Server   // nil with an external Toxiproxy
	procs    []*serverProc  // of clients[1:]
	hosts    int            // servers of hosts in clients[1:], or 0
}

// serverProc is one Toxiproxy server process: the harness's child, or,
// through agents, another host's (halt).
type serverProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited <-chan struct{}
	tail   *tailWriter
	halt   func() // stops a server an agent started; nil for the harness's
}

// serverStarter is a hostServers placement whose hosts start their
// servers themselves (agents: each host's agent, agents_toxi.go).
type serverStarter interface {
	startServer(ctx context.Context, h int) (*toxi.Client, *serverProc, error)
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
		c, p, err := startServer(ctx, len(s.clients), opt, nil, (*exec.Cmd).Start)
		if err != nil {
			return err
		}
		s.clients, s.procs = append(s.clients, c), append(s.procs, p)
	}
	return nil
}

// startOnHosts starts a server process on each of hs's hosts, listening
// on the host's address (before any cluster: they serve every one).
func (s *servers) startOnHosts(ctx context.Context, hs hostServers, opt *Options) error {
	for h := range hs.hostCount() {
		var (
			c   *toxi.Client
			p   *serverProc
			err error
		)
		if ss, ok := hs.(serverStarter); ok {
			c, p, err = ss.startServer(ctx, h)
		} else {
			c, p, err = startServer(ctx, len(s.clients), opt, []string{"--listen", hs.hostAddr(h)},
				func(cmd *exec.Cmd) error { return hs.startOn(h, cmd) })
		}
		if err != nil {
			return fmt.Errorf("host %d's Toxiproxy server: %w", h, err)
		}
		s.clients, s.procs = append(s.clients, c), append(s.procs, p)
		s.hosts++
	}
	return nil
}

// forCluster are the servers of a cluster that k servers hold: the
// hosts' with a server per host, otherwise the first k.
func (s *servers) forCluster(k int) []*toxi.Client {
	if s.hosts > 0 {
		return s.clients[1 : 1+s.hosts]
	}
	return s.clients[:k]
}

// startServer starts server process i (opt.Server and args) with start
// (cmd.Start, or a placement's start on a host) and returns its client
// once it answers.
func startServer(ctx context.Context, i int, opt *Options, args []string, start func(*exec.Cmd) error) (*toxi.Client, *serverProc, error) {
	cmd := exec.Command(opt.Server[0], slices.Concat(opt.Server[1:], args)...)
	cmd.Env = append(cmd.Environ(), opt.Env...)
	cmd.SysProcAttr = nodeSysProcAttr()
	p := &serverProc{cmd: cmd, tail: &tailWriter{log: opt.Log, prefix: fmt.Sprintf("toxiproxy %d: ", i)}}
	cmd.Stderr = p.tail
	ctx, cancel := context.WithTimeout(ctx, serverStartTimeout)
	defer cancel()
	url, stdin, exited, err := toxi.StartServer(ctx, cmd, start)
	if err != nil {
		return nil, nil, fmt.Errorf("starting toxiproxy server %d (%q): %w", i, opt.Server[0], err)
	}
	p.stdin, p.exited = stdin, exited
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
	if p.halt != nil {
		p.halt()
		return
	}
	p.stdin.Close()
	killGroup(p.cmd.Process.Pid)
	<-p.exited
}

// close stops the server processes and the embedded server.
func (s *servers) close() error {
	for _, p := range s.procs {
		p.stop()
	}
	s.clients, s.procs, s.hosts = s.clients[:1], nil, 0
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

// urlsOf are the API endpoints of cs.
func urlsOf(cs []*toxi.Client) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.URL()
	}
	return out
}

// pidsOf are the processes of those of cs that are processes of the
// harness's (not the embedded or external server, nor an agent's).
func (s *servers) pidsOf(cs []*toxi.Client) []int {
	var out []int
	for i, c := range s.clients[1:] {
		if slices.Contains(cs, c) && s.procs[i].cmd != nil {
			out = append(out, s.procs[i].cmd.Process.Pid)
		}
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
