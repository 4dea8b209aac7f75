//go:build unix

package harness

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/live/agent"
)

// agentTimeout bounds an agent's start (its Listening line, the
// connection and its Hello) and a node process's (its Started): an agent
// answers at once or not at all.
const agentTimeout = 15 * time.Second

// agentStop is how long a stopped agent (SIGTERM) has to kill its
// processes and exit before its group is killed.
const agentStop = 5 * time.Second

// agents runs a cluster's nodes through an agent on each host, as hosts
// of their own run them: the agent opens each node's socket on its
// host's address, starts the node, relays its lines and delivers its
// signals. The hosts are network namespaces the harness made, each agent
// started by it (Options.Agents: agents_linux.go), or hosts of their own
// whose agents were started by hand (Options.Hosts: hosts.go). Spawn
// indices are dealt in blocks, as netns deals them, and each host's
// agent runs a Toxiproxy server of its own (hostServers, agents_toxi.go)
// holding the proxies into the host's nodes.
type agents struct {
	hosts []*agentHost
	dir   string       // the key files of the agents the harness started, or ""
	done  func() error // removes the hosts the harness made, or nil
	cuts  nestedCuts   // the cuts between hosts its agents hold (agents_cut.go)
}

// newHosts reaches the agent of every host of hs, started by hand, which
// run the nodes dealt to them and the proxies into those nodes.
func newHosts(hs *Hosts, log io.Writer) (placement, error) {
	a := &agents{}
	if hs.Proxies != "" && log != nil {
		fmt.Fprintf(log, "live: --hosts: proxies: %s is not used: each host's agent runs the proxies into its nodes, on the host's address\n", hs.Proxies)
	}
	for _, host := range hs.Hosts {
		ip, _, _ := net.SplitHostPort(host.Agent) // checked by ReadHosts
		h := newAgentHost(fmt.Sprintf("the agent of host %s (%s)", host.Name, host.Agent), ip, log)
		ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
		err := h.connect(ctx, host.Agent, hs.key, host.pub)
		cancel()
		if err != nil {
			a.close()
			return nil, fmt.Errorf("--hosts: %w", err)
		}
		a.hosts = append(a.hosts, h)
	}
	return a, nil
}

// hostOf is the host of spawn index idx in an n-node cluster: the blocks
// of --netns and of the split servers (serverOf).
func (a *agents) hostOf(idx, n int) int { return serverOf(idx, n, len(a.hosts)) }

// hostCount is how many hosts there are: with hostOf, what the clock
// estimate (clock.go) takes per host, through the agents' relays.
func (a *agents) hostCount() int { return len(a.hosts) }

// errAgentsListen: listen and start are the agents' own (remoteStarter),
// as is the start of a host's Toxiproxy server (startServer).
var errAgentsListen = errors.New("harness: a host's agent opens its nodes' sockets and starts them")

func (a *agents) listen(int, int) (*net.TCPListener, error) { return nil, errAgentsListen }
func (a *agents) start(int, int, *exec.Cmd) error           { return errAgentsListen }
func (a *agents) restartsListen() bool                      { return false }

// hostAddr is host h's address, where its nodes and the proxies into
// them listen.
func (a *agents) hostAddr(h int) string { return a.hosts[h].host }

// startOn: a host's agent starts its Toxiproxy server (startServer).
func (a *agents) startOn(int, *exec.Cmd) error { return errAgentsListen }

// proxyHost needs the cluster's size to find to's host:
// onHosts.proxyHost asks hostAddr instead, and nothing else asks this.
func (a *agents) proxyHost(int) string {
	panic("harness: agents.proxyHost called without the cluster's size (onHosts.proxyHost)")
}

func (a *agents) startRemote(idx, n int, argv, env []string, stderr io.Writer) (remote, error) {
	return a.hosts[a.hostOf(idx, n)].start(argv, env, stderr)
}

// fault is the first host's fault.
func (a *agents) fault() error {
	for _, h := range a.hosts {
		if err := h.fault(); err != nil {
			return err
		}
	}
	return nil
}

// close stops the agents the harness started (and so their nodes) and
// leaves the others (whose nodes die after their grace period), then
// removes the hosts and the keys the harness made.
func (a *agents) close() error {
	for _, h := range a.hosts {
		h.stop()
	}
	var errs []error
	if a.done != nil {
		errs = append(errs, a.done())
	}
	if a.dir != "" {
		errs = append(errs, os.RemoveAll(a.dir))
	}
	return errors.Join(errs...)
}

// agentHost is the harness's side of one host's agent: its connection,
// the node processes it runs for the harness, by number, and the agent's
// process if the harness started it.
type agentHost struct {
	name string    // for errors: which host's agent
	host string    // the host's address, where its nodes listen
	cmd  *exec.Cmd // nil for an agent started by hand
	c    *agent.Client
	log  io.Writer
	mu   sync.Mutex
	last uint32 // the last process number given
	// procs are the processes started and not yet exited; err is the
	// host's fault, after which it runs nothing.
	procs map[uint32]*remoteProc
	err   error
	done  chan struct{} // closed once demux has ended
	srv   *agentServer  // the host's Toxiproxy server, once started (agents_toxi.go)
	// waits are the Cuts and Heals sent and not yet answered, by number
	// (agents_cut.go).
	waits map[uint32]chan *agent.Msg
}

func newAgentHost(name, host string, log io.Writer) *agentHost {
	return &agentHost{name: name, host: host, log: log, procs: map[uint32]*remoteProc{}, done: make(chan struct{}),
		waits: map[uint32]chan *agent.Msg{}}
}

// connect connects to the agent at addr as the controller holding key,
// accepting only the agent's key pub, and delivers its frames from then
// on (demux).
func (h *agentHost) connect(ctx context.Context, addr string, key ed25519.PrivateKey, pub ed25519.PublicKey) error {
	c, err := agent.Dial(ctx, addr, key, pub)
	if err != nil {
		return fmt.Errorf("%s: %w", h.name, err)
	}
	h.c = c
	go h.demux(c.Msgs())
	return nil
}

// start has the agent start a node process, listening on a socket the
// agent opens on its host's address.
func (h *agentHost) start(argv, env []string, stderr io.Writer) (remote, error) {
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return remote{}, h.err
	}
	h.last++
	r := &remoteProc{h: h, id: h.last, stderr: stderr, started: make(chan *agent.Msg, 1), exited: make(chan struct{})}
	r.out = newLineBuf()
	// Listed before its Start goes, so that its Started finds it.
	h.procs[r.id] = r
	h.mu.Unlock()
	if err := h.send(&agent.Msg{Kind: agent.Start, ID: r.id, Args: argv, Env: env, Addr: h.host}); err != nil {
		h.end(r)
		return remote{}, err
	}
	t := time.NewTimer(agentTimeout)
	defer t.Stop()
	select {
	case m := <-r.started:
		if m.Kind == agent.Fail {
			h.end(r)
			return remote{}, fmt.Errorf("%s: %s", h.name, m.Data)
		}
		return remote{ctl: r, stdin: remoteStdin{r}, stdout: r.out, pid: int(m.Code), addr: m.Addr}, nil
	case <-r.exited:
		return remote{}, cmp.Or(h.fault(), fmt.Errorf("%s: its connection ended", h.name))
	case <-t.C:
		// Whatever it says of this process from now on is a fault.
		h.end(r)
		return remote{}, fmt.Errorf("%s did not start process %d within %v", h.name, r.id, agentTimeout)
	}
}

// demux delivers the agent's frames to the processes they name until
// the connection ends or the agent is caught relaying what no node of
// the harness's wrote; every process's output then ends.
func (h *agentHost) demux(msgs <-chan *agent.Msg) {
	defer close(h.done)
	for m := range msgs {
		if err := h.deliver(m); err != nil {
			h.mu.Lock()
			h.err = err
			h.mu.Unlock()
			h.c.Close()
			for range msgs {
			}
			break
		}
	}
	h.mu.Lock()
	if h.err == nil {
		h.err = fmt.Errorf("%s: its connection ended", h.name)
		if err := h.c.Err(); err != nil {
			h.err = fmt.Errorf("%s: its connection ended: %w", h.name, err)
		}
	}
	left := make([]*remoteProc, 0, len(h.procs))
	for _, r := range h.procs {
		left = append(left, r)
	}
	h.mu.Unlock()
	for _, r := range left {
		h.end(r)
	}
}

// deliver hands one frame of the agent's to its process. A frame for a
// process the harness never started, or a standard output line that is
// no control line of the node protocol, is the agent's fault, never a
// node's event: the error names the agent.
func (h *agentHost) deliver(m *agent.Msg) error {
	if m.Kind == agent.ToxiReply {
		return h.toxiReply(m)
	}
	if h.answerRequest(m) {
		return nil
	}
	h.mu.Lock()
	r := h.procs[m.ID]
	h.mu.Unlock()
	if r == nil {
		if m.Kind == agent.Fail {
			// About a process already reaped (a signal that came late), or
			// the connection's own.
			h.logf("%s: %s", h.name, m.Data)
			return nil
		}
		return fmt.Errorf("%s sent a frame of kind %d for process %d, which the harness never started or has seen exit: %.200q", h.name, m.Kind, m.ID, m.Data)
	}
	switch m.Kind {
	case agent.Started:
		if r.running.Swap(true) {
			return fmt.Errorf("%s sent a second Started for process %d", h.name, m.ID)
		}
		r.answer(m)
	case agent.Fail:
		if r.running.Load() || !r.answer(m) {
			h.logf("%s: %s", h.name, m.Data)
		}
	case agent.Line:
		return r.line(m)
	case agent.Exited:
		h.end(r)
	}
	return nil
}

// end forgets r and ends its output: its reader sees the end of its
// lines, then its exit.
func (h *agentHost) end(r *remoteProc) {
	h.mu.Lock()
	delete(h.procs, r.id)
	h.mu.Unlock()
	r.once.Do(func() {
		r.out.Close()
		close(r.exited)
	})
}

// send sends m to the agent; the error names the agent. Once the host is
// at fault (demux closes the connection after noting why) a failed send
// reports the fault, not the closed connection it caused.
func (h *agentHost) send(m *agent.Msg) error {
	if err := h.c.Send(m); err != nil {
		return cmp.Or(h.fault(), fmt.Errorf("%s: %w", h.name, err))
	}
	return nil
}

// fault is why the host runs nothing more: its agent relayed what no node
// of the harness's wrote, or its connection ended.
func (h *agentHost) fault() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.err
}

func (h *agentHost) logf(format string, args ...any) {
	if h.log != nil {
		fmt.Fprintf(h.log, "live: "+format+"\n", args...)
	}
}

// stop ends the connection and, if the harness started the agent, the
// agent: SIGTERM, on which it kills its
// processes and exits, then SIGKILL to its group if it has not within
// agentStop.
func (h *agentHost) stop() {
	if h.c != nil {
		h.c.Close()
		<-h.done
	}
	if h.cmd == nil {
		return
	}
	h.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() {
		h.cmd.Wait()
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(agentStop):
		killGroup(h.cmd.Process.Pid)
		<-exited
	}
}

// remoteProc is a node process an agent runs for the harness: its
// standard output the Line frames of its number, its signals Signal
// frames, its exit the Exited frame.
type remoteProc struct {
	h       *agentHost
	id      uint32
	out     *lineBuf // its Line frames, each a line: what readReports reads
	stderr  io.Writer
	started chan *agent.Msg // its Started, or the Fail of its start
	running atomic.Bool     // its Started has come
	exited  chan struct{}
	once    sync.Once
	mu      sync.Mutex
	stamps  []int64 // the agent's read times of the lines written to out and not yet read
}

// line passes on one line of r's: a control line to its reader, a line of
// its standard error to its diagnostics.
func (r *remoteProc) line(m *agent.Msg) error {
	switch m.Code {
	case 1:
		if _, err := live.ParseReport(m.Data); err != nil {
			return fmt.Errorf("%s relayed a line of process %d that no node writes (%v): %.200q", r.h.name, r.id, err, m.Data)
		}
		// Queued before the line is, so that its reader, having read it,
		// finds its stamp (stamp).
		r.mu.Lock()
		r.stamps = append(r.stamps, m.At)
		r.mu.Unlock()
		r.out.push(m.Data)
	case 2:
		r.stderr.Write(append(m.Data, '\n'))
	default:
		return fmt.Errorf("%s relayed a line of process %d from stream %d, which is neither its output (1) nor its error (2)", r.h.name, r.id, m.Code)
	}
	return nil
}

// answer passes its start's answer (Started, or the Fail of its start)
// to the starter, unless one is already waiting: the agent answers a
// start once.
func (r *remoteProc) answer(m *agent.Msg) bool {
	select {
	case r.started <- m:
		return true
	default:
		return false
	}
}

// stamp is when the agent read the line r's reader has just read.
func (r *remoteProc) stamp() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.stamps) == 0 {
		return 0
	}
	at := r.stamps[0]
	r.stamps = r.stamps[1:]
	return at
}

// signal sends the protocol's signal sig (agent.SigKill, ...).
func (r *remoteProc) signal(sig int32) error {
	return r.h.send(&agent.Msg{Kind: agent.Signal, ID: r.id, Code: sig})
}

// kill, pause and resume ask the agent to signal the process; the agent
// does at once, and a failure comes back as a Fail frame, logged.
func (r *remoteProc) kill()         { r.signal(agent.SigKill) }
func (r *remoteProc) pause() error  { return r.signal(agent.SigStop) }
func (r *remoteProc) resume() error { return r.signal(agent.SigCont) }
func (r *remoteProc) wait()         { <-r.exited }

// remoteStdin is a remote process's standard input: Stdin frames, and
// CloseStdin at its close.
type remoteStdin struct{ r *remoteProc }

func (s remoteStdin) Write(b []byte) (int, error) {
	if err := s.r.h.send(&agent.Msg{Kind: agent.Stdin, ID: s.r.id, Data: b}); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (s remoteStdin) Close() error {
	return s.r.h.send(&agent.Msg{Kind: agent.CloseStdin, ID: s.r.id})
}

// lineBuf is a remote process's standard output as its reader sees it:
// the lines its agent relayed, held without bound until read, so that the
// demultiplexer never waits for a reader. With a pipe, one process's
// line that no one reads yet (its reader starts once every process of the
// trial has) would hold up every frame behind it, the Started of the
// process being started among them. A node that writes faster than the
// trial reads is held up by nothing here, as a pipe's buffer would hold
// it up locally: the trial reads every line as it comes, and its lines
// end with it.
type lineBuf struct {
	mu     sync.Mutex
	more   *sync.Cond // signalled by push and Close
	buf    []byte
	closed bool
}

func newLineBuf() *lineBuf {
	b := &lineBuf{}
	b.more = sync.NewCond(&b.mu)
	return b
}

// push appends a line (without its newline).
func (b *lineBuf) push(line []byte) {
	b.mu.Lock()
	b.buf = append(append(b.buf, line...), '\n')
	b.mu.Unlock()
	b.more.Signal()
}

// Read reads what was pushed, waiting for a line, or io.EOF once Close
// has been called and everything read.
func (b *lineBuf) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.buf) == 0 && !b.closed {
		b.more.Wait()
	}
	if len(b.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	if len(b.buf) == 0 {
		b.buf = nil
	}
	return n, nil
}

// Close ends the lines: the reader reads what is left, then io.EOF.
func (b *lineBuf) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.more.Broadcast()
	return nil
}
