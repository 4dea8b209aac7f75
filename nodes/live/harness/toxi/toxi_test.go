package toxi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// server starts a TCP server on loopback that writes tag and then echoes.
func server(t *testing.T, tag string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.Write([]byte(tag))
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// hello dials addr and reads the server's tag.
func hello(addr string) (string, net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil {
		c.Close()
		return "", nil, err
	}
	return string(b), c, nil
}

func TestProxiesThroughTheAPI(t *testing.T) {
	s, err := StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := NewClient(s.URL())
	ctx := context.Background()
	if _, err := c.Version(ctx); err != nil {
		t.Fatal(err)
	}
	a, b := server(t, "a"), server(t, "b")
	addrs, err := c.Create(ctx, []Link{{Name: "t-1", Upstream: a}, {Name: "t-2", Upstream: a}})
	if err != nil || len(addrs) != 2 || strings.HasSuffix(addrs["t-1"], ":0") {
		t.Fatalf("create: %v %v", addrs, err)
	}
	if names, err := c.Names(ctx, "t-"); err != nil || len(names) != 2 {
		t.Fatalf("names %v, %v", names, err)
	}
	if tag, conn, err := hello(addrs["t-1"]); err != nil || tag != "a" {
		t.Fatalf("through the proxy: %q, %v", tag, err)
	} else {
		conn.Close()
	}
	// Latency is set, then replaced.
	if err := c.SetLatency(ctx, "t-1", 3*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLatency(ctx, "t-1", time.Millisecond, 0); err != nil {
		t.Fatalf("updating the latency: %v", err)
	}
	// A cut drops everything silently; healing lets data through again.
	_, conn, err := hello(addrs["t-1"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := c.Cut(ctx, "t-1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Cut(ctx, "t-1"); err != nil {
		t.Fatalf("cutting twice: %v", err)
	}
	conn.Write([]byte("x"))
	conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := conn.Read(make([]byte, 1)); n != 0 || !errors.Is(err, errTimeout(err)) {
		t.Fatalf("a cut link answered: %d, %v", n, err)
	}
	if err := c.Heal(ctx, "t-1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Heal(ctx, "t-1"); err != nil {
		t.Fatalf("healing twice: %v", err)
	}
	// Removing Toxiproxy's timeout toxic closes the connections it held
	// (its Cleanup): the peers redial.
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the connection held by the cut: %v, want EOF", err)
	}
	_, conn2, err := hello(addrs["t-1"])
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	conn2.Write([]byte("y"))
	got := make([]byte, 1)
	if _, err := io.ReadFull(conn2, got); err != nil || got[0] != 'y' {
		t.Fatalf("after healing: %q, %v", got, err)
	}
	// A disabled proxy refuses connections; enabled, it serves again.
	if err := c.SetEnabled(ctx, "t-2", false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := hello(addrs["t-2"]); err == nil {
		t.Fatal("a disabled proxy accepted a connection")
	}
	if err := c.SetEnabled(ctx, "t-2", true); err != nil {
		t.Fatal(err)
	}
	// A new upstream keeps the listen address.
	if err := c.SetUpstream(ctx, "t-2", b); err != nil {
		t.Fatal(err)
	}
	if tag, conn, err := hello(addrs["t-2"]); err != nil || tag != "b" {
		t.Fatalf("after a new upstream: %q, %v", tag, err)
	} else {
		conn.Close()
	}
	if err := c.Delete(ctx, "t-1", "t-2", "t-absent"); err != nil {
		t.Fatal(err)
	}
	if names, err := c.Names(ctx, "t-"); err != nil || len(names) != 0 {
		t.Fatalf("after delete: %v, %v", names, err)
	}
	if _, _, err := hello(addrs["t-1"]); err == nil {
		t.Fatal("a deleted proxy still listens")
	}
}

func errTimeout(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return errors.New("not a timeout")
}

// Every call has a deadline: a server that never answers costs Timeout.
func TestCallDeadline(t *testing.T) {
	stuck := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(stuck)
	c := NewClient(srv.URL)
	c.Timeout = 50 * time.Millisecond
	_, err := c.Version(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrUnreachable) {
		t.Fatalf("a stuck server: %v", err)
	}
}

// A server found unreachable costs one deadline: later calls fail at once,
// a deletion of many proxies included, until a health check finds it up.
func TestDownServerFailsFast(t *testing.T) {
	var stuck atomic.Bool
	stuck.Store(true)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stuck.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		if r.URL.Path == "/version" {
			w.Write([]byte("test"))
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	defer close(release)
	c := NewClient(srv.URL)
	c.Timeout = 200 * time.Millisecond
	if _, err := c.Version(context.Background()); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("a stuck server: %v", err)
	}
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("p%d", i)
	}
	// 100 deletions at 200 ms each would take 20 s; a down server takes none.
	ctx, cancel := context.WithTimeout(context.Background(), c.Timeout)
	defer cancel()
	if err := c.Delete(ctx, names...); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("deleting on a down server: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("deleting on a down server waited for the server")
	}
	if err := c.Check(context.Background(), c.Timeout); !errors.Is(err, ErrUnreachable) || c.Down() == nil {
		t.Fatalf("health check of a stuck server: %v", err)
	}
	stuck.Store(false)
	if err := c.Check(context.Background(), c.Timeout); err != nil || c.Down() != nil {
		t.Fatalf("health check of a server back up: %v (down: %v)", err, c.Down())
	}
	if err := c.Delete(context.Background(), names...); err != nil {
		t.Fatalf("deleting once the server is back: %v", err)
	}
}

// Closing the embedded server releases every proxy's listener.
func TestEmbeddedCloseReleasesProxies(t *testing.T) {
	s, err := StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(s.URL())
	addrs, err := c.Create(context.Background(), []Link{{Name: "x", Upstream: server(t, "a")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := hello(addrs["x"]); err == nil {
		t.Fatal("a proxy outlived its server")
	}
}

// Many proxies are created in parallel batches, each call with its own
// deadline, and all of them answer for their names.
func TestCreateInBatches(t *testing.T) {
	s, err := StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := NewClient(s.URL())
	up := server(t, "a")
	links := make([]Link, 2*CreateBatch+10)
	names := make([]string, len(links))
	for i := range links {
		names[i] = fmt.Sprintf("b-%d", i)
		links[i] = Link{Name: names[i], Upstream: up}
	}
	addrs, err := c.Create(context.Background(), links)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if addrs[n] == "" || seen[addrs[n]] {
			t.Fatalf("proxy %s: address %q (missing or shared)", n, addrs[n])
		}
		seen[addrs[n]] = true
	}
	if got, err := c.Names(context.Background(), "b-"); err != nil || len(got) != len(links) {
		t.Fatalf("server lists %d proxies (%v), want %d", len(got), err, len(links))
	}
	if err := c.Delete(context.Background(), names...); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Names(context.Background(), "b-"); len(got) != 0 {
		t.Fatalf("%d proxies left after Delete", len(got))
	}
}

// unresponsive is a listener that accepts connections and never answers
// (#39 item 12: a server that takes TCP but is stopped, or hostile).
func unresponsive(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// Every API call honours its context: against a server that accepts and
// never answers, each ends within a second of its context's cancellation,
// not at the call's own 10-second deadline (DESIGN: Ctrl-C acts within a
// second).
func TestCallsHonourContext(t *testing.T) {
	url := unresponsive(t)
	calls := map[string]func(context.Context, *Client) error{
		"version": func(ctx context.Context, c *Client) error { _, err := c.Version(ctx); return err },
		"check":   func(ctx context.Context, c *Client) error { return c.Check(ctx, DefaultTimeout) },
		"create": func(ctx context.Context, c *Client) error {
			_, err := c.Create(ctx, []Link{{Name: "p", Upstream: "127.0.0.1:1"}})
			return err
		},
		"delete":   func(ctx context.Context, c *Client) error { return c.Delete(ctx, "p", "q") },
		"names":    func(ctx context.Context, c *Client) error { _, err := c.Names(ctx, "eb"); return err },
		"latency":  func(ctx context.Context, c *Client) error { return c.SetLatency(ctx, "p", time.Millisecond, 0) },
		"cut":      func(ctx context.Context, c *Client) error { return c.Cut(ctx, "p") },
		"heal":     func(ctx context.Context, c *Client) error { return c.Heal(ctx, "p") },
		"enable":   func(ctx context.Context, c *Client) error { return c.SetEnabled(ctx, "p", false) },
		"upstream": func(ctx context.Context, c *Client) error { return c.SetUpstream(ctx, "p", "127.0.0.1:2") },
		"toxic":    func(ctx context.Context, c *Client) error { return c.AddToxic(ctx, "p", "t", "latency", nil) },
		"untoxic":  func(ctx context.Context, c *Client) error { return c.RemoveToxic(ctx, "p", "t") },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := call(ctx, NewClient(url))
			if d := time.Since(start); err == nil || d > time.Second {
				t.Fatalf("against a server that never answers: %v after %v; want an error within 1 s", err, d)
			}
		})
	}
}
