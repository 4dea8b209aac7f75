package k8slease

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

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
	t     testing.TB
	peers []nodes.Peer
	mu    sync.Mutex
	libs  []nodes.Library
	inbox []chan delivery
	quit  []chan struct{}
	wg    sync.WaitGroup
	dec   [][]nodes.Rank // by position: every leader decided
	disk  []*memStable
	sent  map[nodes.Kind]int
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
	in := c.inbox[to]
	c.mu.Unlock()
	if in != nil {
		select {
		case in <- delivery{nodes.PeerID(h.self), m}:
		default: // a full inbox loses it, as a lost message
		}
	}
}

func newMemCluster(t testing.TB, n int) *memCluster {
	c := &memCluster{t: t, libs: make([]nodes.Library, n), inbox: make([]chan delivery, n), quit: make([]chan struct{}, n),
		dec: make([][]nodes.Rank, n), disk: make([]*memStable, n), sent: map[nodes.Kind]int{}}
	for i := range n {
		c.peers = append(c.peers, nodes.Peer{ID: nodes.PeerID(i), Rank: nodes.Rank{ID: nodes.IDFromUint64(uint64(i + 1))}})
		c.disk[i] = new(memStable)
	}
	return c
}

// start starts process p with lib.
func (c *memCluster) start(p int, lib nodes.Library) {
	in, quit := make(chan delivery, 256), make(chan struct{})
	c.mu.Lock()
	c.inbox[p] = in
	c.mu.Unlock()
	if err := lib.Start(memHost{c, p}); err != nil {
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

func testSettings(t *testing.T) *settings {
	s, err := settingsOf(nodes.Config{N: 4, T: 5 * time.Millisecond,
		Params: nodes.Params{"lease-duration": "1s", "renew-deadline": "800ms", "retry-period": "200ms"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The store (position 0) and three candidates elect one holder that every
// process decides, the store included; when the holder crashes another
// takes the lease and every process knows it within the bounds of the
// library's loops (docs/LIBRARIES.md, "Failover": no sooner than LD − RP
// after the crash, no later than LD + 6.6RP, the network here taking no
// time); and once
// every library is stopped none of its goroutines is left (synctest's
// bubble would not end otherwise).
func TestElectFailover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := testSettings(t)
		c := newMemCluster(t, 4)
		for p := range 4 {
			c.start(p, &library{settings: s})
		}
		first := waitLeader(t, c, -1, 2*s.lease)
		if first == 0 {
			t.Fatal("the store was elected")
		}
		time.Sleep(3 * s.lease) // the holder renews: nobody takes over
		if l := c.leader(); l != first {
			t.Fatalf("leader %d while %d renews", l, first)
		}
		crashed := time.Now() // before stop, which waits for the library's goroutines to end
		c.stop(first)
		lo, hi := s.lease-s.retry, s.lease+66*s.retry/10
		second := waitLeader(t, c, first, hi+s.retry)
		failover := time.Since(crashed)
		if second == first || second == 0 || failover < lo || failover > hi {
			t.Errorf("leader %d after %d crashed, failover %v, want within [%v, %v]", second, first, failover, lo, hi)
		}
		t.Logf("failover %v", failover)
		if c.sent[kindGet] == 0 || c.sent[kindCreate] == 0 || c.sent[kindUpdate] == 0 || c.sent[kindUpdateResp] == 0 {
			t.Errorf("sent %v", c.sent)
		}
		for p := range 4 {
			if p != first {
				c.stop(p)
			}
		}
		c.wg.Wait()
	})
}

// The store answers as the API server does: 404 for a Lease that is not
// there, 409 AlreadyExists for a second CREATE, 409 Conflict for an UPDATE
// from a stale resourceVersion; and it keeps its Leases across a restart.
func TestStoreAnswersAsTheAPIServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newMemCluster(t, 2)
		c.start(0, &store{})
		rt := newRoundTripper(memHost{c, 1}, 0, time.Second)
		c.start(1, rtLibrary{rt})
		client, err := coordinationv1client.NewForConfigAndClient(&rest.Config{Host: "http://store", QPS: -1,
			ContentConfig: rest.ContentConfig{ContentType: "application/json"}}, &http.Client{Transport: rt})
		if err != nil {
			t.Fatal(err)
		}
		leases := client.Leases(leaseNamespace)
		ctx := context.Background()
		if _, err := leases.Get(ctx, leaseName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("GET of no Lease: %v, want NotFound", err)
		}
		holder := "1"
		l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: leaseName, Namespace: leaseNamespace},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
		created, err := leases.Create(ctx, l, metav1.CreateOptions{})
		if err != nil || created.ResourceVersion != "1" {
			t.Fatalf("CREATE: %v, %v", created, err)
		}
		if _, err := leases.Create(ctx, l, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
			t.Fatalf("second CREATE: %v, want AlreadyExists", err)
		}
		updated, err := leases.Update(ctx, created, metav1.UpdateOptions{})
		if err != nil || updated.ResourceVersion != "2" {
			t.Fatalf("UPDATE: %v, %v", updated, err)
		}
		if _, err := leases.Update(ctx, created, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
			t.Fatalf("UPDATE from resourceVersion 1: %v, want Conflict", err)
		}
		c.stop(0)
		c.start(0, &store{})
		got, err := leases.Get(ctx, leaseName, metav1.GetOptions{})
		if err != nil || got.ResourceVersion != "2" || *got.Spec.HolderIdentity != holder {
			t.Fatalf("GET after the store's restart: %v, %v", got, err)
		}
		if d := c.dec[0]; len(d) != 2 || d[0] != c.peers[1].Rank || d[1] != c.peers[1].Rank {
			t.Errorf("the store decided %v, want the holder once and again after its restart", d)
		}
		c.stop(1)
		c.stop(0)
		c.wg.Wait()
	})
}

// rtLibrary is a process that only makes requests (the test's client).
type rtLibrary struct{ rt *roundTripper }

func (r rtLibrary) Start(nodes.Host) error                  { return nil }
func (r rtLibrary) Deliver(_ nodes.PeerID, m nodes.Message) { r.rt.deliver(m) }
func (r rtLibrary) Stop()                                   { r.rt.close() }

// The library's own validation is the user's bad input, at plan time.
func TestParams(t *testing.T) {
	for _, tc := range []struct {
		params nodes.Params
		n      int
		want   string
	}{
		{nodes.Params{"renew-deadline": "15s"}, 3, "leaderelection.NewLeaderElector: leaseDuration must be greater than renewDeadline"},
		{nodes.Params{"retry-period": "9s"}, 3, "renewDeadline must be greater than retryPeriod*JitterFactor"},
		{nodes.Params{"lease-duration": "1500ms"}, 3, "not a whole number of seconds"},
		{nodes.Params{"lease-duration": "soon"}, 3, "parameter lease-duration"},
		{nodes.Params{"log-level": "loud"}, 3, "parameter log-level"},
		{nodes.Params{"tick": "1T"}, 3, "tick"},
		{nil, 1, "at least 2 processes"},
		{nodes.Params{"lease-duration": "200T", "renew-deadline": "600ms", "retry-period": "100ms", "log-level": "4"}, 2, ""},
		{nil, 5, ""},
	} {
		_, err := settingsOf(nodes.Config{Params: tc.params, N: tc.n, T: 5 * time.Millisecond})
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.params, err, tc.want)
		}
	}
}
