package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/pow"
)

var kindBall = nodes.RegisterKind("LIVE_BENCH_BALL", nodes.ElectionClass)

// rallyMachine: Initiate sends the ball (A = 1); whoever receives ball A
// returns A+1 until A reaches the rally's length, then decides itself.
type rallyMachine struct{ hops int64 }

func (r *rallyMachine) Start(nodes.Env) {}
func (r *rallyMachine) Initiate(env nodes.Env) {
	env.Send(r.other(env), nodes.Message{Kind: kindBall, A: 1})
}
func (r *rallyMachine) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	if m.A >= r.hops {
		env.Decide(env.Self())
		return
	}
	env.Send(from, nodes.Message{Kind: kindBall, A: m.A + 1})
}
func (r *rallyMachine) other(env nodes.Env) nodes.PeerID {
	for _, p := range env.Peers() {
		if p.Rank != env.Self() {
			return p.ID
		}
	}
	panic("rally: alone")
}
func (*rallyMachine) Suspect(nodes.Env, nodes.PeerID)  {}
func (*rallyMachine) Timeout(nodes.Env, nodes.TimerID) {}

const rallyHops = 100 // hops per benchmark iteration

func init() {
	nodes.Register(nodes.Algorithm{Name: "live-bench-rally", Family: "test", Topology: nodes.Complete,
		New: func(nodes.Config) (func() nodes.Machine, error) {
			return func() nodes.Machine { return &rallyMachine{hops: rallyHops} }, nil
		}})
}

// echo is a client connection to an echo server: raw TCP, or through a
// proxy.
type echo struct {
	ln  net.Listener
	c   net.Conn
	buf []byte
}

func newEcho(b *testing.B, dial func(addr string) string) *echo {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.Copy(c, c)
	}()
	c, err := net.Dial("tcp", dial(ln.Addr().String()))
	if err != nil {
		b.Fatal(err)
	}
	return &echo{ln: ln, c: c, buf: make([]byte, 16)}
}

// hop measures the one-way time of a 16-byte message, echoed back and forth.
func (e *echo) hop(b *testing.B, hops int) time.Duration {
	start := time.Now()
	for range hops / 2 {
		if _, err := e.c.Write(e.buf); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(e.c, e.buf); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / time.Duration(hops)
}

func (e *echo) close() { e.c.Close(); e.ln.Close() }

// rallyNode is a node runtime in this process, driven through pipes.
type rallyNode struct {
	in      *io.PipeWriter
	reports chan Report
	done    chan error
	addr    string
}

func (n *rallyNode) cmd(c Command) {
	line, _ := json.Marshal(c)
	n.in.Write(append(line, '\n'))
}

// newRally starts two node runtimes, in this process, on real loopback
// sockets whose links pass through Toxiproxy.
func newRally(b *testing.B, c *toxi.Client) []*rallyNode {
	b.Helper()
	ctx := context.Background()
	keys := []*pow.Key{mintB(b), mintB(b)}
	ns := make([]*rallyNode, 2)
	for i := range ns {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		n := &rallyNode{in: inW, reports: make(chan Report, 4096), done: make(chan error, 1)}
		go func() { n.done <- Run(ctx, Options{Identity: keys[i]}, inR, outW); outW.Close() }()
		go func() {
			// The harness is another process in a live run: here its
			// reading costs as little as possible, so that what is
			// measured is the runtime.
			sc := bufio.NewScanner(outR)
			for sc.Scan() {
				line := sc.Bytes()
				if bytes.HasPrefix(line, []byte(`{"type":"step"`)) && !bytes.Contains(line, []byte(`"decide"`)) {
					continue
				}
				var r Report
				json.Unmarshal(line, &r)
				n.reports <- r
			}
			close(n.reports)
		}()
		n.addr = (<-n.reports).Addr
		ns[i] = n
	}
	proxies, err := c.Create(ctx, []toxi.Link{{Name: "rally-0-1", Upstream: ns[1].addr}, {Name: "rally-1-0", Upstream: ns[0].addr}})
	if err != nil {
		b.Fatal(err)
	}
	for i, n := range ns {
		cfg := &Config{Algorithm: "live-bench-rally", T: time.Millisecond, Self: i, MinBits: testBits,
			Links: []Link{{To: 1 - i, Addr: proxies[fmt.Sprintf("rally-%d-%d", i, 1-i)]}}}
		for _, k := range keys {
			cfg.Ranks = append(cfg.Ranks, k.Rank().String())
		}
		n.cmd(Command{Type: "configure", Config: cfg})
	}
	for _, n := range ns {
		if r := <-n.reports; r.Type != "link" {
			b.Fatalf("link: %+v", r)
		}
		if r := <-n.reports; r.Type != "linked" || r.Up != 1 {
			b.Fatalf("linked: %+v", r)
		}
	}
	t0 := Mono()
	for _, n := range ns {
		n.cmd(Command{Type: "start", T0: t0})
	}
	return ns
}

// rallyHop measures the one-way time of a message between the two
// runtimes: Toxiproxy's hop plus the runtime's receive, dispatch, machine,
// encode, write, counting and step report.
func rallyHop(b *testing.B, ns []*rallyNode, rallies int) time.Duration {
	start := time.Now()
	for range rallies {
		ns[0].cmd(Command{Type: "initiate"})
		// rallyHops is even: the ball ends where it started.
		if r := <-ns[0].reports; len(r.Decide) != 1 {
			b.Fatalf("rally: %+v", r)
		}
	}
	return time.Since(start) / time.Duration(rallies*rallyHops)
}

func stopRally(b *testing.B, ns []*rallyNode) {
	for _, n := range ns {
		n.cmd(Command{Type: "stop"})
		for range n.reports {
		}
		if err := <-n.done; err != nil {
			b.Fatal(err)
		}
		n.in.Close()
	}
}

func mintB(b *testing.B) *pow.Key {
	k, err := LoadOrMint(context.Background(), "", IdentityParams(testBits))
	if err != nil {
		b.Fatal(err)
	}
	return k
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkHop measures, in one run, a message's one-way time over loopback
// TCP, through a Toxiproxy proxy with no toxics, and between two node
// runtimes through such proxies, and reports the runtime's own cost per hop
// (node − toxiproxy) and the ratios. Each iteration measures 200 hops of
// each, interleaved, so that a change in the host's load hits all three
// alike; the figures are the medians over the iterations.
func BenchmarkHop(b *testing.B) {
	srv, err := toxi.StartEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := toxi.NewClient(srv.URL())
	viaProxy := func(upstream string) string {
		addrs, err := c.Create(context.Background(), []toxi.Link{{Name: "echo", Upstream: upstream}})
		if err != nil {
			b.Fatal(err)
		}
		return addrs["echo"]
	}
	tcp := newEcho(b, func(addr string) string { return addr })
	defer tcp.close()
	proxied := newEcho(b, viaProxy)
	defer proxied.close()
	ns := newRally(b, c)
	defer stopRally(b, ns)
	tcp.hop(b, 2000) // warm up
	proxied.hop(b, 2000)
	rallyHop(b, ns, 10)
	var ts, ps, rs []time.Duration
	b.ResetTimer()
	for range b.N {
		ts = append(ts, tcp.hop(b, 2*rallyHops))
		ps = append(ps, proxied.hop(b, 2*rallyHops))
		rs = append(rs, rallyHop(b, ns, 2))
	}
	b.StopTimer()
	t, p, r := median(ts), median(ps), median(rs)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(t), "tcp-µs/hop")
	b.ReportMetric(us(p), "toxiproxy-µs/hop")
	b.ReportMetric(us(r), "node-µs/hop")
	b.ReportMetric(us(r-p), "runtime-µs/hop")
	b.ReportMetric(float64(p)/float64(t), "toxiproxy/tcp")
	b.ReportMetric(float64(r)/float64(p), "node/toxiproxy")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkHandshake runs honest handshakes, dialer against acceptor,
// over an in-memory connection, the gate having vouched for both
// identities already (as it has after a node's first link with each
// peer): what each of a cluster's links costs in CPU, both sides
// together. A pair's first link computes the X25519 secret of the two
// nodes' ephemeral keys and checks both certificates (first), its other
// (the other way) and its redials find them kept (kept): a complete
// graph's links are half of each. It reports handshakes per second of one
// core.
func BenchmarkHandshake(b *testing.B) {
	keys := make([]*pow.Key, 2)
	for i := range keys {
		k, err := LoadOrMint(context.Background(), "", IdentityParams(testBits))
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = k
	}
	for _, first := range []bool{true, false} {
		name := "kept"
		if first {
			name = "first"
		}
		b.Run(name, func(b *testing.B) {
			hd, ha := handshaker(keys[0], nil), handshaker(keys[1], nil)
			hd.Gate, ha.Gate = NewGate(), NewGate()
			roster := map[nodes.ID]int{keys[0].ID: 1}
			for b.Loop() {
				if first {
					hd.eph.secrets, ha.eph.secrets = nil, nil
					hd.eph.certs, ha.eph.certs = nil, nil
				}
				if dialErr, got := shake(hd, ha, keys[1].ID, roster); dialErr != nil || got.err != nil {
					b.Fatalf("honest handshake: dial %v, accept %v", dialErr, got.err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "handshakes/s")
		})
	}
}
