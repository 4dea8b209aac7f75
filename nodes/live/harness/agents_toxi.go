//go:build unix

package harness

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes/live/agent"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// Each host's Toxiproxy server, started by its agent (agent.ToxiStart),
// its API on the host's loopback: Toxiproxy's API takes no credentials,
// so on a real host it must be reachable by no one but this controller.
// The harness drives it through the agent's pinned TLS connection: a
// reverse proxy on this machine's loopback (toxi.Client speaks HTTP to
// an address) whose transport (agentServer.RoundTrip) sends each
// request as an agent.ToxiRequest frame and reads the response from the
// agent's ToxiReply. The proxies themselves listen on the host's
// address, where the nodes of other hosts dial them.

// agentServer is the harness's side of one host's Toxiproxy server: the
// requests sent to its agent and not yet answered, by number, and the
// local endpoint its client calls.
type agentServer struct {
	h     *agentHost
	mu    sync.Mutex
	last  uint32                     // the last request number given
	wait  map[uint32]chan *agent.Msg // the requests awaiting their reply
	http  *http.Server               // the local endpoint
	limit uint64                     // the server's limit on open files, as its agent reported it; 0: unknown
}

// startServer has host h's agent start its Toxiproxy server and returns
// a client of it, and the server as the harness stops it (serverStarter).
func (a *agents) startServer(ctx context.Context, h int) (*toxi.Client, *serverProc, error) {
	host := a.hosts[h]
	s := &agentServer{h: host, wait: map[uint32]chan *agent.Msg{}}
	host.mu.Lock()
	host.srv = s
	host.mu.Unlock()
	rep, err := s.call(ctx, &agent.Msg{Kind: agent.ToxiStart})
	if err != nil {
		return nil, nil, fmt.Errorf("starting its Toxiproxy server: %w", err)
	}
	s.limit = uint64(rep.Code)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.stop()
		return nil, nil, fmt.Errorf("%s's Toxiproxy server: a local endpoint: %w", host.name, err)
	}
	s.http = &http.Server{
		Handler: &httputil.ReverseProxy{
			// The host is a placeholder: the agent forwards every
			// request to its own server, whatever the request names.
			Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: "http", Host: "toxiproxy"}) },
			Transport: s,
			ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
				http.Error(w, err.Error(), http.StatusBadGateway)
			},
		},
		ReadHeaderTimeout: 10 * time.Second,
	}
	go s.http.Serve(ln)
	c := toxi.NewClient("http://" + ln.Addr().String())
	if _, err := c.Version(ctx); err != nil {
		s.stop()
		return nil, nil, fmt.Errorf("%s's Toxiproxy server: %w", host.name, err)
	}
	return c, &serverProc{halt: s.stop}, nil
}

// serverLimit is host h's Toxiproxy server's limit on open files, as its
// agent reported it (hostLimits).
func (a *agents) serverLimit(h int) (uint64, bool) {
	s := a.hosts[h].server()
	if s == nil || s.limit == 0 {
		return 0, false
	}
	return s.limit, true
}

// server is the host's Toxiproxy server, or nil before it is started.
func (h *agentHost) server() *agentServer {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.srv
}

// call sends m, numbered, to the agent and waits for its reply: an error
// if it failed, if ctx ends first, or if the agent's connection does.
func (s *agentServer) call(ctx context.Context, m *agent.Msg) (*agent.Msg, error) {
	reply := make(chan *agent.Msg, 1)
	s.mu.Lock()
	s.last++
	m.ID = s.last
	s.wait[m.ID] = reply
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.wait, m.ID)
		s.mu.Unlock()
	}()
	if err := s.h.send(m); err != nil {
		return nil, err
	}
	select {
	case rep := <-reply:
		if rep.Code < 0 {
			return nil, fmt.Errorf("%s: %s", s.h.name, rep.Data)
		}
		return rep, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: no answer to Toxiproxy request %d: %w", s.h.name, m.ID, ctx.Err())
	case <-s.h.done:
		return nil, errors.Join(s.h.fault(), fmt.Errorf("%s: no answer to Toxiproxy request %d", s.h.name, m.ID))
	}
}

// reply hands the agent's reply to its request. A reply to a request
// given up on (its caller's deadline passed) comes late and is dropped;
// one to a request never made is the agent's fault.
func (s *agentServer) reply(m *agent.Msg) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m.ID == 0 || m.ID > s.last {
		return fmt.Errorf("%s answered Toxiproxy request %d, which the harness never made", s.h.name, m.ID)
	}
	if w := s.wait[m.ID]; w != nil {
		w <- m
		delete(s.wait, m.ID)
	}
	return nil
}

// toxiReply delivers a ToxiReply of the agent's.
func (h *agentHost) toxiReply(m *agent.Msg) error {
	s := h.server()
	if s == nil {
		return fmt.Errorf("%s answered Toxiproxy request %d before the harness made any", h.name, m.ID)
	}
	return s.reply(m)
}

// RoundTrip sends req to the host's Toxiproxy server through its agent.
func (s *agentServer) RoundTrip(req *http.Request) (*http.Response, error) {
	var b bytes.Buffer
	if err := req.Write(&b); err != nil {
		return nil, fmt.Errorf("%s: writing a Toxiproxy request: %w", s.h.name, err)
	}
	rep, err := s.call(req.Context(), &agent.Msg{Kind: agent.ToxiRequest, Data: b.Bytes()})
	if err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rep.Data)), req)
	if err != nil {
		return nil, fmt.Errorf("%s: reading its Toxiproxy server's response: %w", s.h.name, err)
	}
	return resp, nil
}

// stop closes the local endpoint and has the agent stop the server,
// waiting a moment for it: an agent that does not answer is stopped, or
// left to its grace period, by the placement's close.
func (s *agentServer) stop() {
	if s.http != nil {
		s.http.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), agentStop)
	defer cancel()
	if _, err := s.call(ctx, &agent.Msg{Kind: agent.ToxiStop}); err != nil {
		s.h.logf("stopping the Toxiproxy server: %v", err)
	}
}
