package toxi

import (
	"context"
	"net"
	"strconv"
	"testing"
)

// BenchmarkCreate populates an embedded server with the proxies of a
// 64-node complete graph (4,032) and removes them: what a kept cluster's
// first trial pays for its proxies. It reports proxies made per second.
func BenchmarkCreate(b *testing.B) {
	const n = 64 * 63
	s, err := StartEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c := NewClient(s.URL())
	links := make([]Link, n)
	names := make([]string, n)
	for i := range links {
		names[i] = "bench" + strconv.Itoa(i)
		links[i] = Link{Name: names[i], Upstream: ln.Addr().String()}
	}
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if _, err := c.Create(ctx, links); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := c.Delete(ctx, names...); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "proxies/s")
}
