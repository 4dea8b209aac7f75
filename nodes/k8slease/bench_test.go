package k8slease

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/electbench/electbench/nodes/nodetest"
)

// direct is the in-memory twin of the adapter's transport: the store's
// handler called in the client's goroutine, with no message between them.
type direct struct {
	mu sync.Mutex
	s  *store
}

func (d *direct) RoundTrip(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	code, body := d.s.serve(req)
	d.mu.Unlock()
	return &http.Response{StatusCode: code, ProtoMajor: 1, ProtoMinor: 1, Request: req,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body))}, nil
}

// BenchmarkLeaseGet is the holder's read of the Lease through the
// clientset: over the adapter (the request and the answer written as HTTP
// into a message each, through a node's inbox and the store's goroutine)
// against the direct in-memory transport.
func BenchmarkLeaseGet(b *testing.B) {
	for _, via := range []string{"adapter", "direct"} {
		b.Run(via, func(b *testing.B) {
			c := nodetest.NewLibraries(b, 2)
			var rt http.RoundTripper
			switch via {
			case "adapter":
				c.Start(0, &store{})
				r := newRoundTripper(c.Host(1), 0, time.Second)
				c.Start(1, rtLibrary{r})
				rt = r
			case "direct":
				s := &store{}
				if err := s.Start(c.Host(0)); err != nil {
					b.Fatal(err)
				}
				rt = &direct{s: s}
			}
			client, err := coordinationv1client.NewForConfigAndClient(&rest.Config{Host: "http://store", QPS: -1,
				ContentConfig: rest.ContentConfig{ContentType: "application/json"}}, &http.Client{Transport: rt})
			if err != nil {
				b.Fatal(err)
			}
			leases, ctx, holder := client.Leases(leaseNamespace), context.Background(), "1"
			if _, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: leaseName},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if _, err := leases.Get(ctx, leaseName, metav1.GetOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "requests/s")
			if via == "adapter" {
				c.Stop(1)
				c.Stop(0)
			}
			c.Wait()
		})
	}
}

// The library's own CPU with a holder in place: four candidates, client-go's
// LeaderElector unchanged, each with its own clientset over the direct
// in-memory transport to one store in the same process, with the timing of
// the built-in k8s-lease scenarios (lease 2 s, renew deadline 1.5 s, retry
// 300 ms), run for a second per iteration once the lease is held.
// cpu-ms/s is the process's user and system CPU per second of that steady
// state, all candidates and the store together: the figure a live run's
// node processes are compared with (docs/LIBRARIES.md, "CPU").
func BenchmarkSteadyElectionCPU(b *testing.B) {
	s := &settings{lease: 2 * time.Second, renew: 1500 * time.Millisecond, retry: 300 * time.Millisecond, verbosity: -1}
	c := nodetest.NewLibraries(b, 1)
	st := &store{}
	if err := st.Start(c.Host(0)); err != nil {
		b.Fatal(err)
	}
	rt := &direct{s: st}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	led := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i := 1; i <= 4; i++ {
		client, err := coordinationv1client.NewForConfigAndClient(&rest.Config{Host: "http://store", QPS: -1,
			ContentConfig: rest.ContentConfig{ContentType: "application/json"}}, &http.Client{Transport: rt})
		if err != nil {
			b.Fatal(err)
		}
		lock := &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Name: leaseName, Namespace: leaseNamespace},
			Client: client, LockConfig: resourcelock.ResourceLockConfig{Identity: strconv.Itoa(i)}}
		le, err := leaderelection.NewLeaderElector(s.config(lock, leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { led <- struct{}{} }, OnStoppedLeading: func() {}}))
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() { le.Run(ctx) })
	}
	defer func() {
		cancel()
		wg.Wait()
		c.Wait()
	}()
	select {
	case <-led:
	case <-time.After(10 * time.Second):
		b.Fatal("no holder within 10 s")
	}
	before, start := nodetest.CPUTime(b), time.Now()
	for b.Loop() {
		time.Sleep(time.Second)
	}
	b.ReportMetric(float64((nodetest.CPUTime(b)-before).Microseconds())/1e3/time.Since(start).Seconds(), "cpu-ms/s")
}
