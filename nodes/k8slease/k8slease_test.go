package k8slease

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

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
		c := nodetest.NewLibraries(t, 4)
		for p := range 4 {
			c.Start(p, &library{settings: s})
		}
		first := c.WaitLeader(t, -1, 2*s.lease)
		if first == 0 {
			t.Fatal("the store was elected")
		}
		time.Sleep(3 * s.lease) // the holder renews: nobody takes over
		if l := c.Leader(); l != first {
			t.Fatalf("leader %d while %d renews", l, first)
		}
		crashed := time.Now() // before stop, which waits for the library's goroutines to end
		c.Stop(first)
		lo, hi := s.lease-s.retry, s.lease+66*s.retry/10
		second := c.WaitLeader(t, first, hi+s.retry)
		failover := time.Since(crashed)
		if second == first || second == 0 || failover < lo || failover > hi {
			t.Errorf("leader %d after %d crashed, failover %v, want within [%v, %v]", second, first, failover, lo, hi)
		}
		t.Logf("failover %v", failover)
		if sent := c.Sent(); sent[kindGet] == 0 || sent[kindCreate] == 0 || sent[kindUpdate] == 0 || sent[kindUpdateResp] == 0 {
			t.Errorf("sent %v", sent)
		}
		for p := range 4 {
			if p != first {
				c.Stop(p)
			}
		}
		c.Wait()
	})
}

// The store answers as the API server does: 404 for a Lease that is not
// there, 409 AlreadyExists for a second CREATE, 409 Conflict for an UPDATE
// from a stale resourceVersion; and it keeps its Leases across a restart.
func TestStoreAnswersAsTheAPIServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := nodetest.NewLibraries(t, 2)
		c.Start(0, &store{})
		rt := newRoundTripper(c.Host(1), 0, time.Second)
		c.Start(1, rtLibrary{rt})
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
		c.Stop(0)
		c.Start(0, &store{})
		got, err := leases.Get(ctx, leaseName, metav1.GetOptions{})
		if err != nil || got.ResourceVersion != "2" || *got.Spec.HolderIdentity != holder {
			t.Fatalf("GET after the store's restart: %v, %v", got, err)
		}
		if d := c.Decided(0); len(d) != 2 || d[0] != c.Rank(1) || d[1] != c.Rank(1) {
			t.Errorf("the store decided %v, want the holder once and again after its restart", d)
		}
		c.Stop(1)
		c.Stop(0)
		c.Wait()
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
