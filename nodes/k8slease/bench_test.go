package k8slease

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

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
