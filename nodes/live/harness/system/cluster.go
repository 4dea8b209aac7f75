//go:build linux

package system

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness/netcut"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// MaxMembers bounds a cluster: the members' uids and addresses are drawn
// per run in blocks of this size.
const MaxMembers = 64

// ErrStart wraps a member's failure to start or the cluster's to form: an
// infrastructure error, not the algorithm's.
var ErrStart = errors.New("system cluster failed to start")

// Cluster is one trial's running servers. Its methods are called from
// one goroutine; Observations is read from another.
type Cluster struct {
	srv   *Server
	bin   string
	spec  Spec
	dir   string
	cut   *netcut.Table
	toxi  *toxi.Server // the members' inbound proxies; nil without delays
	tc    *toxi.Client // toxi's
	gated error        // the first failure to open or close a proxy (Server.Listens)
	obs   chan Observation
	mu    sync.Mutex // guards procs and gated
	procs []*proc
	died  chan died      // a member that exited unasked
	wg    sync.WaitGroup // the log readers
}

// proc is a member's running process.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once it has exited and been reaped
	tail   *tail         // its last log lines, for the error if it dies
	killed bool          // Crash or Close killed it: no news
}

// died is a member's unasked exit.
type died struct {
	member int
	err    error
	tail   string
}

// runBlock is this run's share of uids and loopback addresses, so that two
// runs on one host (two pids) neither share a uid, which would merge their
// pins, nor an address, which would merge their cuts.
func runBlock(pid int) (uidBase uint32, net16 [2]byte) {
	b := pid % 38400
	return 1_000_000 + uint32(pid)*MaxMembers, [2]byte{byte(100 + b/256), byte(b % 256)}
}

// Start starts spec.N members of srv in dir (a fresh directory of the
// trial's, which it makes traversable by the members' uids); WaitFormed
// then waits for them to elect. The error wraps ErrMissing or ErrStart.
func Start(ctx context.Context, srv *Server, spec Spec, dir string) (*Cluster, error) {
	bin, err := srv.Path()
	if err != nil {
		return nil, err
	}
	if spec.N < 1 || spec.N > MaxMembers {
		return nil, fmt.Errorf("%s: %d members; want 1..%d", srv.Name, spec.N, MaxMembers)
	}
	c := &Cluster{srv: srv, bin: bin, spec: spec, dir: dir, obs: make(chan Observation, 1<<12), procs: make([]*proc, spec.N), died: make(chan died, spec.N)}
	if err := c.place(); err != nil {
		return nil, errors.Join(fmt.Errorf("%w: %w", ErrStart, err), c.Close())
	}
	for i := range c.spec.Members {
		if err := c.Restart(i); err != nil {
			return nil, errors.Join(err, c.Close())
		}
	}
	return c, nil
}

// place gives every member its address, ports, uid and data directory,
// and pins its uid to its address.
func (c *Cluster) place() error {
	if err := os.Chmod(c.dir, 0o711); err != nil {
		return err
	}
	t, err := netcut.Open(os.Getpid(), owner.Token())
	if err != nil {
		return err
	}
	c.cut = t
	uidBase, n16 := runBlock(os.Getpid())
	proxied := c.delayed()
	c.spec.Members = make([]Member, c.spec.N)
	for i := range c.spec.Members {
		m := Member{Index: i, Addr: netip.AddrFrom4([4]byte{127, n16[0], n16[1], byte(i + 1)}), UID: uidBase + uint32(i),
			Dir: filepath.Join(c.dir, "m"+strconv.Itoa(i))}
		// Five ports at once, so that the proxies' are none of the
		// member's.
		ports, err := freePorts(m.Addr, 5)
		if err != nil {
			return err
		}
		m.PeerPort, m.ClientPort, m.ElectionPort = ports[0], ports[1], ports[2]
		if proxied {
			m.PeerVia = ports[3]
			if c.srv.ElectionPort {
				m.ElectionVia = ports[4]
			}
		}
		if err := os.Mkdir(m.Dir, 0o700); err != nil {
			return err
		}
		if err := os.Chown(m.Dir, int(m.UID), int(m.UID)); err != nil {
			return err
		}
		if err := c.cut.Pin(m.UID, m.Addr); err != nil {
			return err
		}
		c.spec.Members[i] = m
	}
	if proxied {
		return c.proxy()
	}
	return nil
}

// delayed reports whether any member's proxies would delay anything.
func (c *Cluster) delayed() bool {
	for _, d := range c.spec.Delays {
		if d.Latency >= time.Millisecond || d.Jitter >= time.Millisecond {
			return true
		}
	}
	return false
}

// proxy puts an inbound proxy in front of every member's peer (and
// election) port, on the member's own address, and delays both ways of
// each by the member's Delay. On the member's address, a proxied
// connection's bytes between the two members still travel between
// their two addresses (dialer → proxy, and proxy → dialer on the
// connections the member dialed), so netcut's rules between members'
// addresses cut and lose them as before; the proxy's own leg to the
// member runs from 127.0.0.1, which no rule names.
func (c *Cluster) proxy() error {
	s, err := toxi.StartEmbedded()
	if err != nil {
		return err
	}
	c.toxi = s
	var links []toxi.Link
	delays := map[string]Delay{}
	for _, m := range c.spec.Members {
		for _, p := range [][2]int{{m.PeerVia, m.PeerPort}, {m.ElectionVia, m.ElectionPort}} {
			if p[0] == 0 {
				continue
			}
			name := proxyName(m, p[1])
			links = append(links, toxi.Link{Name: name, Host: m.Addr.String(), Port: p[0], Upstream: netip.AddrPortFrom(m.Addr, uint16(p[1])).String()})
			if m.Index < len(c.spec.Delays) {
				delays[name] = c.spec.Delays[m.Index]
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), toxi.DefaultTimeout)
	defer cancel()
	c.tc = toxi.NewClient(s.URL())
	if _, err := c.tc.Create(ctx, links); err != nil {
		return fmt.Errorf("the members' proxies: %w", err)
	}
	for name, d := range delays {
		if err := c.tc.SetLatencyBothWays(ctx, name, d.Latency, d.Jitter); err != nil {
			return fmt.Errorf("the members' proxies: %w", err)
		}
	}
	if c.srv.Listens != nil {
		// No member listens on its peer port before it says so.
		for _, m := range c.spec.Members {
			if err := c.tc.SetEnabled(ctx, proxyName(m, m.PeerPort), false); err != nil {
				return fmt.Errorf("the members' proxies: %w", err)
			}
		}
	}
	return nil
}

// proxyName names the proxy in front of member m's port.
func proxyName(m Member, port int) string { return fmt.Sprintf("m%d-%d", m.Index, port) }

// gate opens or closes member i's peer proxy as the member opens or
// closes its peer port (Server.Listens); a failure is kept for Close.
func (c *Cluster) gate(i int, open bool) {
	if c.tc == nil || c.spec.Members[i].PeerVia == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), toxi.DefaultTimeout)
	defer cancel()
	m := c.spec.Members[i]
	if err := c.tc.SetEnabled(ctx, proxyName(m, m.PeerPort), open); err != nil {
		c.mu.Lock()
		if c.gated == nil {
			c.gated = fmt.Errorf("member %d's proxy (open %v): %w", i, open, err)
		}
		c.mu.Unlock()
	}
}

// freePorts asks the kernel for k ports free on addr, holding each open
// until all are found: one closed before the next was asked for could be
// given again (a member's peer and client ports were once the same, and
// it failed to bind). The address is the member's own, so only this run
// binds it.
func freePorts(addr netip.Addr, k int) ([]int, error) {
	ports := make([]int, k)
	for i := range ports {
		ln, err := net.Listen("tcp", netip.AddrPortFrom(addr, 0).String())
		if err != nil {
			return nil, fmt.Errorf("finding a port on %v: %w", addr, err)
		}
		defer ln.Close()
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// Spec is the cluster as started, its members placed.
func (c *Cluster) Spec() *Spec { return &c.spec }

// Observations streams what the members log of their leadership, in each
// member's own order. It is closed by Close.
func (c *Cluster) Observations() <-chan Observation { return c.obs }

// Restart starts member i, again with its data directory after a crash.
func (c *Cluster) Restart(i int) error {
	m := c.spec.Members[i]
	if c.srv.Prepare != nil {
		if err := c.srv.Prepare(&c.spec, m); err != nil {
			return fmt.Errorf("%w: member %d: %w", ErrStart, i, err)
		}
	}
	cmd := exec.Command(c.bin, c.srv.Args(&c.spec, m)...)
	cmd.Dir = m.Dir
	if c.srv.Env != nil {
		cmd.Env = append(os.Environ(), c.srv.Env(&c.spec, m)...)
	}
	cmd.SysProcAttr = memberSysProcAttr(m.UID)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("%w: member %d: %w", ErrStart, i, err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: member %d (%s): %w", ErrStart, i, c.bin, err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{}), tail: &tail{}}
	c.mu.Lock()
	c.procs[i] = p
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		c.read(i, stderr, p.tail, c.srv.Reader(&c.spec, i))
		err := cmd.Wait() // after the log ends: Wait closes the pipe
		close(p.exited)
		c.mu.Lock()
		killed := p.killed
		c.mu.Unlock()
		if !killed {
			select {
			case c.died <- died{member: i, err: err, tail: p.tail.String()}:
			default: // an earlier death of the cluster's is unread: one says enough
			}
		}
	}()
	return nil
}

// read turns a member's log lines into observations until it exits,
// keeping the last ones.
func (c *Cluster) read(i int, stderr io.Reader, t *tail, observe func([]byte) (Observation, bool)) {
	defer c.wg.Done()
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		t.add(sc.Text())
		if c.srv.Listens != nil {
			if open, ok := c.srv.Listens(sc.Bytes()); ok {
				c.gate(i, open)
			}
		}
		if o, ok := observe(sc.Bytes()); ok {
			c.obs <- o
		}
	}
}

// tail keeps a member's last log lines.
type tail struct {
	mu    sync.Mutex
	lines []string
}

func (t *tail) add(l string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lines) == 3 {
		t.lines = t.lines[1:]
	}
	t.lines = append(t.lines, l)
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}

// signal sends sig to member i's process group; false if it is not
// running.
func (c *Cluster) signal(i int, sig syscall.Signal) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.procs[i]
	if p == nil {
		return false
	}
	if sig == syscall.SIGKILL {
		p.killed = true
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	return true
}

// Crash kills member i (SIGKILL) and waits for it to exit.
func (c *Cluster) Crash(i int) {
	if c.signal(i, syscall.SIGKILL) {
		c.mu.Lock()
		p := c.procs[i]
		c.procs[i] = nil
		c.mu.Unlock()
		<-p.exited // its log read to the end: no line opens its proxy again
		if c.srv.Listens != nil {
			c.gate(i, false)
		}
	}
}

// Pause stops member i (SIGSTOP); Resume continues it (SIGCONT).
func (c *Cluster) Pause(i int)  { c.signal(i, syscall.SIGSTOP) }
func (c *Cluster) Resume(i int) { c.signal(i, syscall.SIGCONT) }

// Loss drops percent% of what member i sends member j (100 cuts the
// link that way, 0 heals it).
func (c *Cluster) Loss(i, j, percent int) error {
	return c.cut.Loss(c.spec.Members[i].Addr, c.spec.Members[j].Addr, percent)
}

// WaitFormed waits until every member has logged the same leader; a
// member that exits meanwhile fails it at once, with its last log lines.
func WaitFormed(ctx context.Context, c *Cluster, seen func(Observation)) error {
	leader := make([]int, c.spec.N)
	for i := range leader {
		leader[i] = NoLeader
	}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %d members logged no common leader: %w", ErrStart, c.spec.N, ctx.Err())
		case d := <-c.died:
			return fmt.Errorf("%w: member %d exited (%v): %s", ErrStart, d.member, d.err, d.tail)
		case o := <-c.obs:
			seen(o)
			if o.Leader != LeaderUnchanged {
				leader[o.Member] = o.Leader
			}
			if agreed(leader) {
				return nil
			}
		}
	}
}

func agreed(leader []int) bool {
	for _, l := range leader {
		if l < 0 || l != leader[0] {
			return false
		}
	}
	return true
}

// Close kills every member, waits for their logs to end (draining what
// nobody read), deletes their directories and the run's nftables table,
// and closes Observations.
func (c *Cluster) Close() error {
	for i := range c.procs {
		c.Crash(i)
	}
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	drained := false
	for !drained {
		select {
		case <-c.obs:
		case <-done:
			drained = true
		case <-time.After(5 * time.Second):
			// A member's child holding a log pipe open keeps its reader
			// blocked; the members' groups were killed, so it is gone.
			return fmt.Errorf("%s: a member's log stayed open 5 s after its process group was killed", c.srv.Name)
		}
	}
	close(c.obs)
	var errs []error
	for _, m := range c.spec.Members {
		if err := os.RemoveAll(m.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	if c.cut != nil {
		errs = append(errs, c.cut.Close())
	}
	if c.toxi != nil {
		errs = append(errs, c.gated, c.toxi.Close())
	}
	return errors.Join(errs...)
}
