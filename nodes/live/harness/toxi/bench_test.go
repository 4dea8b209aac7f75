package toxi

import (
	"context"
	"net"
	"strconv"
	"testing"
)

// cluster64 is an embedded server holding the 4,032 proxies of a
// 64-node complete graph, each named in names and forwarding to one
// listener, and a client of it.
func cluster64(b *testing.B) (c *Client, links []Link, names []string) {
	const n = 64 * 63
	s, err := StartEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	links, names = make([]Link, n), make([]string, n)
	for i := range links {
		names[i] = "bench" + strconv.Itoa(i)
		links[i] = Link{Name: names[i], Upstream: ln.Addr().String()}
	}
	return NewClient(s.URL()), links, names
}

// BenchmarkStates lists the 4,032 proxies of a 64-node complete graph,
// each with its latency toxic, in one call: what reading a kept cluster
// back costs.
func BenchmarkStates(b *testing.B) {
	c, links, names := cluster64(b)
	ctx := context.Background()
	if _, err := c.Create(ctx, links); err != nil {
		b.Fatal(err)
	}
	for _, name := range names {
		if err := c.SetLatency(ctx, name, 1e6, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		st, err := c.States(ctx, "bench")
		if err != nil || len(st) != len(names) {
			b.Fatalf("%d states, %v", len(st), err)
		}
	}
}

// BenchmarkCreate populates an embedded server with the proxies of a
// 64-node complete graph (4,032) and removes them: what a kept cluster's
// first trial pays for its proxies. It reports proxies made per second.
func BenchmarkCreate(b *testing.B) {
	c, links, names := cluster64(b)
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
	b.ReportMetric(float64(len(links)*b.N)/b.Elapsed().Seconds(), "proxies/s")
}
