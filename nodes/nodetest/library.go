package nodetest

import (
	"io"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/electbench/electbench/internal/cputime"
	"github.com/electbench/electbench/nodes"
)

// Libraries hosts live-only libraries (nodes.Library) in memory as live
// nodes host them, for the libraries' own tests (hraft, k8slease): each has
// an inbox drained by one goroutine (the node's), a send to a stopped
// process or into a full inbox is lost, decisions are recorded, and each
// process's stable storage outlives its library, as the node's state file
// outlives a crash. Run it in a synctest bubble: its clock is the bubble's.
type Libraries struct {
	t     testing.TB
	peers []nodes.Peer
	mu    sync.Mutex
	libs  []nodes.Library
	inbox []chan libDelivery
	quit  []chan struct{}
	wg    sync.WaitGroup
	dec   [][]nodes.Rank // by position: every leader decided
	disk  []*MemStable
	sent  map[nodes.Kind]int
}

type libDelivery struct {
	from nodes.PeerID
	m    nodes.Message
}

// NewLibraries makes n processes, of ids 1..n by position.
func NewLibraries(t testing.TB, n int) *Libraries {
	c := &Libraries{t: t, libs: make([]nodes.Library, n), inbox: make([]chan libDelivery, n), quit: make([]chan struct{}, n),
		dec: make([][]nodes.Rank, n), disk: make([]*MemStable, n), sent: map[nodes.Kind]int{}}
	for i := range n {
		c.peers = append(c.peers, nodes.Peer{ID: nodes.PeerID(i), Rank: nodes.Rank{ID: nodes.IDFromUint64(uint64(i + 1))}})
		c.disk[i] = new(MemStable)
	}
	return c
}

// Host is process p's host, for a library started by hand.
func (c *Libraries) Host(p int) nodes.Host { return libHost{c, p} }

// Rank is process p's rank.
func (c *Libraries) Rank(p int) nodes.Rank { return c.peers[p].Rank }

// Start starts process p with lib.
func (c *Libraries) Start(p int, lib nodes.Library) {
	in, quit := make(chan libDelivery, 256), make(chan struct{})
	c.mu.Lock()
	c.inbox[p] = in
	c.mu.Unlock()
	if err := lib.Start(libHost{c, p}); err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.libs[p], c.quit[p] = lib, quit
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			select {
			case d := <-in:
				lib.Deliver(d.from, d.m)
			case <-quit:
				return
			}
		}
	}()
}

// Stop crashes process p: its node stops delivering, its library stops.
func (c *Libraries) Stop(p int) {
	c.mu.Lock()
	l, quit := c.libs[p], c.quit[p]
	c.inbox[p], c.libs[p] = nil, nil
	c.mu.Unlock()
	close(quit)
	l.Stop()
}

// Wait returns once every delivering goroutine has ended (all stopped).
func (c *Libraries) Wait() { c.wg.Wait() }

// Library is process p's running library, nil when stopped.
func (c *Libraries) Library(p int) nodes.Library {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.libs[p]
}

// Decided is every leader process p decided, in order.
func (c *Libraries) Decided(p int) []nodes.Rank {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]nodes.Rank(nil), c.dec[p]...)
}

// Sent is how many messages of each kind were sent so far.
func (c *Libraries) Sent() map[nodes.Kind]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.sent)
}

// Leader is the position every running process last decided, or -1.
func (c *Libraries) Leader() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	agreed := -1
	for p, l := range c.libs {
		if l == nil {
			continue
		}
		d := c.dec[p]
		if len(d) == 0 {
			return -1
		}
		pos := int(d[len(d)-1].ID[3]) - 1
		if agreed >= 0 && pos != agreed {
			return -1
		}
		agreed = pos
	}
	return agreed
}

// WaitLeader waits, on the bubble's clock, until every running process has
// decided the same leader, other than old, for at most limit.
func (c *Libraries) WaitLeader(t *testing.T, old int, limit time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		if l := c.Leader(); l >= 0 && l != old {
			return l
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Fatalf("no leader agreed within %v: %v", limit, c.dec)
	return -1
}

type libHost struct {
	c    *Libraries
	self int
}

func (h libHost) Self() nodes.Rank          { return h.c.peers[h.self].Rank }
func (h libHost) Peers() []nodes.Peer       { return h.c.peers }
func (h libHost) Now() time.Duration        { return 0 }
func (h libHost) Stable() nodes.StableStore { return h.c.disk[h.self] }
func (h libHost) Log() io.Writer            { return io.Discard }
func (h libHost) Decide(l nodes.Rank) {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	h.c.dec[h.self] = append(h.c.dec[h.self], l)
}
func (h libHost) Send(to nodes.PeerID, m nodes.Message) {
	c := h.c
	if len(m.Body) > nodes.MaxBodySize || !m.Kind.Valid() {
		c.t.Errorf("process %d sent %s with a %d-byte body", h.self, m.Kind, len(m.Body))
	}
	c.mu.Lock()
	c.sent[m.Kind]++
	in := c.inbox[to]
	c.mu.Unlock()
	if in != nil {
		select {
		case in <- libDelivery{nodes.PeerID(h.self), m}:
		default: // a full inbox loses it, as a lost message
		}
	}
}

// MemStable is a process's stable storage in memory (nodes.StableStore).
type MemStable struct {
	mu sync.Mutex
	b  []byte
}

func (s *MemStable) LoadStable() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b
}

func (s *MemStable) SaveStable(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append([]byte(nil), b...)
}

func (s *MemStable) AppendStable(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, b...)
}

// CPUTime is this process's user and system CPU time so far (getrusage):
// the libraries' benchmarks of their own CPU in a steady state, with
// nothing of the live runtime around them (docs/LIBRARIES.md, "CPU").
func CPUTime(t testing.TB) time.Duration {
	d, ok := cputime.Self()
	if !ok {
		t.Fatal("this system does not give a process's CPU time (getrusage)")
	}
	return d
}
