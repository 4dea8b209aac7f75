// Package toxi drives Toxiproxy for live runs: one proxy per directed link,
// latency and jitter toxics, partitions (a disabled proxy, or a `timeout`
// toxic that drops everything silently), and the embedded server a live run
// starts when no `--toxiproxy URL` is given.
//
// Every call goes through Toxiproxy's HTTP client, for the embedded server as
// for an external toxiproxy-server, so one code path serves both, and every
// call has a deadline (Client.Timeout): the client library takes no context,
// so a call that overruns is abandoned to finish in the background, bounded
// by the library's own 30-second HTTP timeout.
//
// Toxiproxy's jitter is drawn from the global math/rand source of the
// Toxiproxy process and cannot be seeded: a run with jitter is not
// reproducible bit for bit. Latencies per link are our own draws, from the
// run's seed, and are.
package toxi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	zlog "github.com/rs/zerolog/log"
)

// Server is a Toxiproxy server embedded in this process, listening on
// loopback on a port of the kernel's choosing.
type Server struct {
	api  *toxiproxy.ApiServer
	http *http.Server
	url  string
	done chan struct{}
	once sync.Once
	err  error
}

var quietGlobal sync.Once

// StartEmbedded starts a Toxiproxy server in this process, its API on
// loopback.
func StartEmbedded() (*Server, error) { return StartEmbeddedOn("127.0.0.1") }

// StartEmbeddedOn starts a Toxiproxy server in this process, its API on
// host (an address of this network namespace): a --netns host's server
// is driven from the harness's namespace, which its loopback is not.
func StartEmbeddedOn(host string) (*Server, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("toxiproxy: listening on %s: %w", host, err)
	}
	// Some toxics (bandwidth) log through zerolog's global logger, which
	// writes trace lines to stderr: nothing else here uses it.
	quietGlobal.Do(func() { zlog.Logger = zerolog.Nop() })
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	s := &Server{
		api:  api,
		http: &http.Server{Handler: api.Routes(), ReadHeaderTimeout: 10 * time.Second},
		url:  "http://" + ln.Addr().String(),
		done: make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		s.http.Serve(ln)
	}()
	return s, nil
}

// URL is the server's API endpoint.
func (s *Server) URL() string { return s.url }

// Close stops the API and every proxy, closing their listeners and
// connections.
func (s *Server) Close() error {
	s.once.Do(func() {
		// Close, not Shutdown: a run is over when this is called, and an
		// HTTP client's spare connection would hold Shutdown for seconds.
		s.err = s.http.Close()
		<-s.done
		s.api.Collection.Clear()
	})
	return s.err
}

// DefaultTimeout bounds each API call.
const DefaultTimeout = 10 * time.Second

// ErrUnreachable is wrapped by the error of every call to a server that
// did not answer: a refused connection, or no answer within the call's
// deadline (a stopped or dead server). The server is then taken for down
// and every later call fails at once with it, until Check finds it up:
// a dead server costs one timeout, not one per call.
var ErrUnreachable = errors.New("toxiproxy server unreachable")

// Client drives one Toxiproxy server.
type Client struct {
	c       *toxiclient.Client
	url     string
	Timeout time.Duration // per call; 0 means DefaultTimeout

	mu   sync.Mutex
	down error // why the server was last found unreachable; nil while it answers
}

// Down returns why the server was found unreachable, or nil.
func (c *Client) Down() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.down
}

// Check asks the server for its version within d and returns nil if it
// answers, clearing an earlier Down; otherwise an error wrapping
// ErrUnreachable.
func (c *Client) Check(ctx context.Context, d time.Duration) error {
	return c.health(ctx, d, func() error { _, err := c.c.Version(); return err })
}

// health runs f, a version request, within d, whatever Down says, and
// records whether the server answered (a cancelled ctx records nothing).
func (c *Client) health(ctx context.Context, d time.Duration, f func() error) error {
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := c.try(cctx, "version", f)
	if ctx.Err() != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil || errors.Is(err, ErrUnreachable) {
		c.down = err
	}
	return err
}

// NewClient returns a client of the server at url ("http://127.0.0.1:8474"
// or "127.0.0.1:8474").
func NewClient(url string) *Client {
	c := toxiclient.NewClient(url)
	c.UserAgent = "electbench"
	return &Client{c: c, url: url}
}

// URL is the server's endpoint as given.
func (c *Client) URL() string { return c.url }

// call runs f with the client's deadline, at once failing if the server
// was found down.
func (c *Client) call(ctx context.Context, what string, f func() error) error {
	if down := c.Down(); down != nil {
		return fmt.Errorf("toxiproxy %s at %s: %w", what, c.url, down)
	}
	d := c.Timeout
	if d <= 0 {
		d = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := c.try(cctx, what, f)
	if errors.Is(err, ErrUnreachable) && ctx.Err() == nil {
		c.mu.Lock()
		if c.down == nil {
			c.down = err
		}
		c.mu.Unlock()
	}
	return err
}

// try runs f until ctx ends. An error that is not the server's answer
// (an API error) wraps ErrUnreachable, unless ctx was cancelled by the
// caller.
func (c *Client) try(ctx context.Context, what string, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		var ae *toxiclient.ApiError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ae), badURL(err):
			return fmt.Errorf("toxiproxy %s at %s: %w", what, c.url, err)
		}
		return fmt.Errorf("toxiproxy %s at %s: %w: %w", what, c.url, ErrUnreachable, err)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("toxiproxy %s at %s: %w: no answer: %w", what, c.url, ErrUnreachable, ctx.Err())
		}
		return fmt.Errorf("toxiproxy %s at %s: %w", what, c.url, ctx.Err())
	}
}

// Version asks the server for its version: a liveness check, which, like
// Check, is asked even of a server found down and records the answer.
func (c *Client) Version(ctx context.Context) (string, error) {
	var v []byte
	d := c.Timeout
	if d <= 0 {
		d = DefaultTimeout
	}
	err := c.health(ctx, d, func() (err error) {
		v, err = c.c.Version()
		return err
	})
	return strings.TrimSpace(string(v)), err
}

// Link is one proxy to create: the traffic of one directed link.
type Link struct {
	Name     string // unique on the server
	Upstream string // the address the proxy forwards to
	Host     string // the loopback address the proxy listens on; "" is 127.0.0.1
	Port     int    // the port it listens on; 0 is the kernel's choice
}

// CreateBatch is how many proxies one populate call creates, and
// CreateWorkers how many such calls run at once: a complete graph of 128
// nodes has 16,256 links, and one call for them all outlived any fixed
// per-call timeout. Each batch has the client's per-call timeout.
const (
	CreateBatch   = 256
	CreateWorkers = 4
)

// Create creates a proxy per link, each listening on its Host (127.0.0.1
// by default) on a port of the kernel's choosing, in parallel batches
// (CreateBatch, CreateWorkers), and returns their listen addresses by
// name. On failure it removes whatever it created, if the server answers.
func (c *Client) Create(ctx context.Context, links []Link) (map[string]string, error) {
	out := make(map[string]string, len(links))
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	batches := make(chan []Link)
	for range min(CreateWorkers, (len(links)+CreateBatch-1)/CreateBatch) {
		wg.Go(func() {
			for batch := range batches {
				made, err := c.populate(ctx, batch)
				mu.Lock()
				for name, addr := range made {
					out[name] = addr
				}
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	for start := 0; start < len(links); start += CreateBatch {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		batches <- links[start:min(start+CreateBatch, len(links))]
	}
	close(batches)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = fmt.Errorf("toxiproxy populate at %s: %w", c.url, ctx.Err())
	}
	if first == nil && len(out) != len(links) {
		first = fmt.Errorf("toxiproxy populate at %s: %d of %d proxies created", c.url, len(out), len(links))
	}
	if first != nil {
		// The server answered: remove what it made. One that did not
		// (or a cancelled call) may still make them all: the caller
		// removes its proxies by name once the server answers again.
		if !errors.Is(first, ErrUnreachable) && ctx.Err() == nil {
			names := make([]string, len(links))
			for i, l := range links {
				names[i] = l.Name
			}
			c.Delete(ctx, names...)
		}
		return nil, first
	}
	return out, nil
}

// populate creates one batch of proxies in one call.
func (c *Client) populate(ctx context.Context, links []Link) (map[string]string, error) {
	cfg := make([]toxiclient.Proxy, len(links))
	for i, l := range links {
		host := l.Host
		if host == "" {
			host = "127.0.0.1"
		}
		cfg[i] = toxiclient.Proxy{Name: l.Name, Listen: net.JoinHostPort(host, strconv.Itoa(l.Port)), Upstream: l.Upstream, Enabled: true}
	}
	var made []*toxiclient.Proxy
	err := c.call(ctx, "populate", func() (err error) {
		made, err = c.c.Populate(cfg)
		return err
	})
	out := make(map[string]string, len(made))
	for _, p := range made {
		out[p.Name] = p.Listen
	}
	return out, err
}

// DeleteWorkers is how many deletions Delete runs at once.
const DeleteWorkers = 8

// Delete removes proxies by name, closing their listeners and connections,
// DeleteWorkers at a time. A proxy that does not exist is not an error. It
// returns the first error; once the server is down or ctx ends the names
// left are not tried.
func (c *Client) Delete(ctx context.Context, names ...string) error {
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	ch := make(chan string)
	for range min(DeleteWorkers, len(names)) {
		wg.Go(func() {
			for name := range ch {
				err := c.call(ctx, "delete "+name, func() error {
					p := c.c.NewProxy()
					p.Name = name
					return p.Delete()
				})
				if err != nil && !notFound(err) {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, name := range names {
		if ctx.Err() != nil || c.Down() != nil {
			break
		}
		ch <- name
	}
	close(ch)
	wg.Wait()
	if first == nil {
		if first = ctx.Err(); first == nil && c.Down() != nil {
			first = fmt.Errorf("toxiproxy delete at %s: %w", c.url, c.Down())
		}
	}
	return first
}

// badURL reports an error about the server's URL itself: the caller's
// mistake, not a server that is down.
func badURL(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && ue.Op == "parse"
}

func notFound(err error) bool {
	var ae *toxiclient.ApiError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// Names lists the proxies on the server whose names start with prefix.
func (c *Client) Names(ctx context.Context, prefix string) ([]string, error) {
	states, err := c.States(ctx, prefix)
	out := make([]string, 0, len(states))
	for name := range states {
		out = append(out, name)
	}
	sort.Strings(out)
	return out, err
}

// State is what the server holds of one proxy.
type State struct {
	Listen, Upstream string
	Enabled          bool
	Toxics           []Toxic
}

// Toxic is one toxic on a proxy, with its attributes in Toxiproxy's
// units.
type Toxic struct {
	Name, Type string
	Attributes map[string]any
}

// States returns, in one call, the proxies whose names start with prefix,
// by name.
func (c *Client) States(ctx context.Context, prefix string) (map[string]State, error) {
	var all map[string]*toxiclient.Proxy
	err := c.call(ctx, "list", func() (err error) {
		all, err = c.c.Proxies()
		return err
	})
	out := map[string]State{}
	for name, p := range all {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		st := State{Listen: p.Listen, Upstream: p.Upstream, Enabled: p.Enabled}
		for _, t := range p.ActiveToxics {
			st.Toxics = append(st.Toxics, Toxic{Name: t.Name, Type: t.Type, Attributes: t.Attributes})
		}
		out[name] = st
	}
	return out, err
}

// Toxic names this package uses; a link holds at most one of each.
const (
	LatencyToxic = "electbench-latency"
	CutToxic     = "electbench-cut"
)

// proxy returns a handle on an existing proxy without asking the server:
// toxics are added and removed by the proxy's name alone.
func (c *Client) proxy(name string) *toxiclient.Proxy {
	p := c.c.NewProxy()
	p.Name = name
	return p
}

// SetLatency delays the link's traffic (client to upstream: the direction a
// live link carries messages) by latency ± jitter. Toxiproxy works in whole
// milliseconds; its jitter is uniform and unseeded. It replaces an earlier
// latency on the link.
func (c *Client) SetLatency(ctx context.Context, name string, latency, jitter time.Duration) error {
	attrs := toxiclient.Attributes{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()}
	err := c.call(ctx, "add latency to "+name, func() error {
		_, err := c.proxy(name).AddToxic(LatencyToxic, "latency", "upstream", 1, attrs)
		return err
	})
	if err == nil || !alreadyExists(err) {
		return err
	}
	return c.call(ctx, "update latency of "+name, func() error {
		_, err := c.proxy(name).UpdateToxic(LatencyToxic, 1, attrs)
		return err
	})
}

// LatencyBackToxic is the latency toxic SetLatencyBothWays adds to a
// proxy's downstream.
const LatencyBackToxic = "electbench-latency-back"

// SetLatencyBothWays delays a new proxy's traffic both ways, toward its
// upstream and back, by latency ± jitter each way (whole milliseconds): a
// proxy in front of a server member carries what the peers that dialed
// it send the member and what the member answers them on the same
// connections. Unlike SetLatency it is set once, on a proxy that has no
// latency yet.
func (c *Client) SetLatencyBothWays(ctx context.Context, name string, latency, jitter time.Duration) error {
	if err := c.SetLatency(ctx, name, latency, jitter); err != nil {
		return err
	}
	attrs := toxiclient.Attributes{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()}
	return c.call(ctx, "add back latency to "+name, func() error {
		_, err := c.proxy(name).AddToxic(LatencyBackToxic, "latency", "downstream", 1, attrs)
		return err
	})
}

func alreadyExists(err error) bool {
	var ae *toxiclient.ApiError
	return errors.As(err, &ae) && ae.Status == http.StatusConflict
}

// Cut drops everything on the link silently, keeping its connections open
// (a `timeout` toxic with no timeout): the peers see silence, not an error.
func (c *Client) Cut(ctx context.Context, name string) error {
	err := c.call(ctx, "cut "+name, func() error {
		_, err := c.proxy(name).AddToxic(CutToxic, "timeout", "upstream", 1, toxiclient.Attributes{"timeout": 0})
		return err
	})
	if alreadyExists(err) {
		return nil
	}
	return err
}

// Heal undoes Cut. Toxiproxy closes the connections the cut held when it
// removes the toxic: the peers see the link fail then, and reconnect.
func (c *Client) Heal(ctx context.Context, name string) error {
	err := c.call(ctx, "heal "+name, func() error { return c.proxy(name).RemoveToxic(CutToxic) })
	if notFound(err) {
		return nil
	}
	return err
}

// SetEnabled disables a proxy (closing its listener and every connection
// through it: the peers see the link fail) or enables it again.
func (c *Client) SetEnabled(ctx context.Context, name string, enabled bool) error {
	return c.update(ctx, name, func(p *toxiclient.Proxy) { p.Enabled = enabled })
}

// SetUpstream points a proxy at a new address (a restarted process listens
// on a new port). Its connections are closed; its listen address and toxics
// stay.
func (c *Client) SetUpstream(ctx context.Context, name, upstream string) error {
	return c.update(ctx, name, func(p *toxiclient.Proxy) { p.Upstream = upstream })
}

func (c *Client) update(ctx context.Context, name string, change func(*toxiclient.Proxy)) error {
	return c.call(ctx, "update "+name, func() error {
		p, err := c.c.Proxy(name)
		if err != nil {
			return err
		}
		change(p)
		return p.Save()
	})
}

// AddToxic adds a toxic of Toxiproxy's type typ (latency, bandwidth,
// slow_close, timeout, reset_peer, slicer, limit_data) under name to the
// link's traffic toward its upstream, applying to every connection, with
// attributes in Toxiproxy's units. Several toxics of one type stack when
// their names differ.
func (c *Client) AddToxic(ctx context.Context, proxy, name, typ string, attrs map[string]int64) error {
	a := toxiclient.Attributes{}
	for k, v := range attrs {
		a[k] = v
	}
	err := c.call(ctx, "add "+typ+" toxic to "+proxy, func() error {
		_, err := c.proxy(proxy).AddToxic(name, typ, "upstream", 1, a)
		return err
	})
	if alreadyExists(err) {
		return nil
	}
	return err
}

// RemoveToxic removes the toxic AddToxic named name; a toxic already gone
// is no error.
func (c *Client) RemoveToxic(ctx context.Context, proxy, name string) error {
	err := c.call(ctx, "remove toxic "+name+" of "+proxy, func() error { return c.proxy(proxy).RemoveToxic(name) })
	if notFound(err) {
		return nil
	}
	return err
}
