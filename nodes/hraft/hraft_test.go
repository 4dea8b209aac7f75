package hraft

import (
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/electbench/electbench/nodes"
)

// memStable is a process's stable storage that outlives its library, as
// the node's file does across a restart.
type memStable struct {
	mu sync.Mutex
	b  []byte
}

func (s *memStable) LoadStable() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b
}
func (s *memStable) SaveStable(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append([]byte(nil), b...)
}
func (s *memStable) AppendStable(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, b...)
}

// memCluster hosts libraries as a live node would: each has an inbox
// drained by one goroutine (the node's), sends to a stopped process are
// lost, and decisions are recorded.
type memCluster struct {
	t     *testing.T
	peers []nodes.Peer
	mu    sync.Mutex
	libs  []*library
	inbox []chan delivery
	quit  []chan struct{}
	wg    sync.WaitGroup
	dec   [][]nodes.Rank // by position: every leader decided
	disk  []*memStable
	sent  map[nodes.Kind]int
	terms map[int64]bool // terms of RequestVote sent
}

type delivery struct {
	from nodes.PeerID
	m    nodes.Message
}

type memHost struct {
	c    *memCluster
	self int
}

func (h memHost) Self() nodes.Rank          { return h.c.peers[h.self].Rank }
func (h memHost) Peers() []nodes.Peer       { return h.c.peers }
func (h memHost) Now() time.Duration        { return 0 }
func (h memHost) Stable() nodes.StableStore { return h.c.disk[h.self] }
func (h memHost) Log() io.Writer            { return io.Discard }
func (h memHost) Decide(l nodes.Rank) {
	h.c.mu.Lock()
	defer h.c.mu.Unlock()
	h.c.dec[h.self] = append(h.c.dec[h.self], l)
}
func (h memHost) Send(to nodes.PeerID, m nodes.Message) {
	c := h.c
	if len(m.Body) > nodes.MaxBodySize || !m.Kind.Valid() {
		c.t.Errorf("process %d sent %s with a %d-byte body", h.self, m.Kind, len(m.Body))
	}
	c.mu.Lock()
	c.sent[m.Kind]++
	if m.Kind == kindVote {
		c.terms[m.A] = true
	}
	in := c.inbox[to]
	c.mu.Unlock()
	if in != nil {
		select {
		case in <- delivery{nodes.PeerID(h.self), m}:
		default: // a full inbox loses it, as a lost message
		}
	}
}

func newMemCluster(t *testing.T, n int) *memCluster {
	c := &memCluster{t: t, libs: make([]*library, n), inbox: make([]chan delivery, n), quit: make([]chan struct{}, n),
		dec: make([][]nodes.Rank, n), disk: make([]*memStable, n), sent: map[nodes.Kind]int{}, terms: map[int64]bool{}}
	for i := range n {
		c.peers = append(c.peers, nodes.Peer{ID: nodes.PeerID(i), Rank: nodes.Rank{ID: nodes.IDFromUint64(uint64(i + 1))}})
		c.disk[i] = new(memStable)
	}
	return c
}

// start starts process p's library with settings s.
func (c *memCluster) start(p int, s *settings) {
	l := &library{settings: s}
	in, quit := make(chan delivery, 256), make(chan struct{})
	if err := l.Start(memHost{c, p}); err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.libs[p], c.inbox[p], c.quit[p] = l, in, quit
	c.mu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		for {
			select {
			case d := <-in:
				l.Deliver(d.from, d.m)
			case <-quit:
				return
			}
		}
	}()
}

// stop crashes process p: its node stops delivering, its library stops.
func (c *memCluster) stop(p int) {
	c.mu.Lock()
	l, quit := c.libs[p], c.quit[p]
	c.inbox[p], c.libs[p] = nil, nil
	c.mu.Unlock()
	close(quit)
	l.Stop()
}

// leader is the leader every running process last decided, or -1.
func (c *memCluster) leader() int {
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

func testSettings(t *testing.T, variant string) *settings {
	s, err := settingsOf(nodes.Config{Variant: variant, T: 5 * time.Millisecond,
		Params: nodes.Params{"heartbeat-timeout": "100ms", "election-timeout": "100ms", "leader-lease-timeout": "50ms", "commit-timeout": "5ms"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Five servers elect one leader that all decide; when it crashes the
// others elect another within the follower loop's bound (docs/LIBRARIES.md:
// under 3HT + 4ET after the crash, the network here taking no time); the
// crashed server restarts remembering its term (the stable store) and
// follows the new leader; and once every library is stopped none of its
// goroutines is left (synctest's bubble would not end otherwise).
func TestElectFailoverRestart(t *testing.T) {
	for _, variant := range []string{"default", "no-prevote"} {
		t.Run(variant, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := testSettings(t, variant)
				c := newMemCluster(t, 5)
				for p := range 5 {
					c.start(p, s)
				}
				first := waitLeader(t, c, -1, 2*time.Second)
				term := c.libs[first].raft.CurrentTerm()
				c.stop(first)
				crashed := time.Now()
				second := waitLeader(t, c, first, 3*s.heartbeat+4*s.election)
				if second == first || second < 0 {
					t.Fatalf("leader %d after %d crashed", second, first)
				}
				t.Logf("%s: failover %v", variant, time.Since(crashed))
				c.start(first, s)
				if got := c.libs[first].raft.CurrentTerm(); got < term {
					t.Errorf("restarted with term %d, before its crash %d", got, term)
				}
				if l := waitLeader(t, c, -1, 2*time.Second); l != second {
					t.Errorf("after the restart the leader is %d, not %d", l, second)
				}
				if c.sent[kindHeartbeat] == 0 || c.sent[kindVote] == 0 || (c.sent[kindPreVote] == 0) != (variant == "no-prevote") {
					t.Errorf("sent %v", c.sent)
				}
				for p := range 5 {
					c.stop(p)
				}
				c.wg.Wait()
			})
		})
	}
}

// waitLeader waits, on synctest's clock, until every running process has
// decided the same leader, other than old, for at most limit.
func waitLeader(t *testing.T, c *memCluster, old int, limit time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		if l := c.leader(); l >= 0 && l != old {
			return l
		}
	}
	t.Fatalf("no leader agreed within %v: %v", limit, c.dec)
	return -1
}

// The library's own validation is the user's bad input, at plan time.
func TestParams(t *testing.T) {
	for _, tc := range []struct {
		params  nodes.Params
		variant string
		want    string
	}{
		{nodes.Params{"leader-lease-timeout": "30T"}, "", "raft.ValidateConfig: LeaderLeaseTimeout (150ms) cannot be larger than heartbeat timeout (100ms)"},
		{nodes.Params{"election-timeout": "10T"}, "", "ElectionTimeout (50ms) must be equal or greater than Heartbeat Timeout (100ms)"},
		{nodes.Params{"heartbeat-timeout": "1ms", "leader-lease-timeout": "1ms", "election-timeout": "1ms"}, "", "HeartbeatTimeout is too low"},
		{nodes.Params{"heartbeat-timeout": "soon"}, "", "parameter heartbeat-timeout"},
		{nodes.Params{"log-level": "loud"}, "", "parameter log-level"},
		{nodes.Params{"tick": "1T"}, "", "tick"},
		{nil, "fast", `no variant "fast"`},
		{nodes.Params{"heartbeat-timeout": "500ms", "election-timeout": "1s", "log-level": "info"}, "no-prevote", ""},
	} {
		_, err := settingsOf(nodes.Config{Variant: tc.variant, Params: tc.params, T: 5 * time.Millisecond})
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %q: %v, want %q", tc.params, tc.variant, err, tc.want)
		}
	}
}
