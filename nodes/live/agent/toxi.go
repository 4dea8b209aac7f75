package agent

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// The host's Toxiproxy server. Its HTTP API is unauthenticated (anyone
// who reaches it can cut, slow or redirect every link into the host), so
// it listens on the host's loopback only, and the controller reaches it
// through this agent: each request a ToxiRequest frame on the pinned TLS
// connection, answered from the local API in a ToxiReply. Its proxies
// listen where the controller creates them, on the host's address, for
// the nodes of other hosts to dial.

// toxiStartTimeout bounds a Toxiproxy server's start, until it prints
// its URL; toxiCallTimeout one request to its API, longer than the
// controller's own deadline on a call (toxi.DefaultTimeout), which gives
// up first.
const (
	toxiStartTimeout = 30 * time.Second
	toxiCallTimeout  = 30 * time.Second
)

// toxiServer is the host's Toxiproxy server process: a proc, killed with
// the agent's others, whose standard input closing also ends it.
type toxiServer struct {
	p      *proc
	stdin  io.WriteCloser
	url    string          // its API, on the host's loopback
	exited <-chan struct{} // closed once it has been reaped
	client *http.Client
}

// toxiAsk says whether k is a request about the host's Toxiproxy server,
// which only a controller sends.
func toxiAsk(k Kind) bool { return k == ToxiStart || k == ToxiStop || k == ToxiRequest }

// handleToxi carries out a request about the host's Toxiproxy server and
// answers it with a ToxiReply of the same number. A start or stop is
// done in the controller's loop, before its next frame; a request to the
// API in a goroutine of its own, so that a slow one (a batch of proxies)
// holds up neither the nodes' frames nor the other requests.
func (a *Agent) handleToxi(m *Msg) {
	switch m.Kind {
	case ToxiStart:
		err := a.startToxi()
		a.replyToxi(m.ID, descriptorLimit(), nil, err)
	case ToxiStop:
		a.stopToxi()
		a.replyToxi(m.ID, 0, nil, nil)
	case ToxiRequest:
		a.mu.Lock()
		s := a.toxi
		a.mu.Unlock()
		if s == nil {
			a.replyToxi(m.ID, 0, nil, fmt.Errorf("agent: request %d: no Toxiproxy server runs (ToxiStart first)", m.ID))
			return
		}
		go func() {
			resp, err := s.forward(m.Data)
			if err != nil {
				err = fmt.Errorf("agent: Toxiproxy request %d: %w", m.ID, err)
			}
			a.replyToxi(m.ID, 0, resp, err)
		}()
	}
}

// replyToxi answers request id: code and data, or err.
func (a *Agent) replyToxi(id uint32, code int32, data []byte, err error) {
	if err != nil {
		code, data = -1, []byte(err.Error())
	}
	a.send(&Msg{Kind: ToxiReply, ID: id, Code: code, Data: data})
}

// startToxi starts the host's Toxiproxy server, its API on the host's
// loopback, stopping one already running: a controller that asks starts
// from no proxies.
func (a *Agent) startToxi() error {
	if len(a.opt.Toxiproxy) == 0 {
		return fmt.Errorf("agent: this agent runs no Toxiproxy server (no command given)")
	}
	a.stopToxi()
	argv := append(a.opt.Toxiproxy[:len(a.opt.Toxiproxy):len(a.opt.Toxiproxy)], "--listen", "127.0.0.1")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = sysProcAttr()
	cmd.Stderr = a.opt.Log
	ctx, cancel := context.WithTimeout(context.Background(), toxiStartTimeout)
	defer cancel()
	url, stdin, exited, err := toxi.StartServer(ctx, cmd, nil)
	if err != nil {
		return fmt.Errorf("agent: starting the Toxiproxy server (%q): %w", argv[0], err)
	}
	s := &toxiServer{p: &proc{cmd: cmd}, stdin: stdin, url: url, exited: exited, client: &http.Client{Timeout: toxiCallTimeout}}
	if s.url == "" {
		s.stop()
		return fmt.Errorf("agent: the Toxiproxy server (pid %d) reported no URL within %v", cmd.Process.Pid, toxiStartTimeout)
	}
	a.mu.Lock()
	a.toxi = s
	a.mu.Unlock()
	return nil
}

// stopToxi stops the host's Toxiproxy server, if one runs.
func (a *Agent) stopToxi() {
	a.mu.Lock()
	s := a.toxi
	a.toxi = nil
	a.mu.Unlock()
	if s != nil {
		s.stop()
	}
}

// stop ends the server and waits until it is reaped: its proxies go with
// it.
func (s *toxiServer) stop() {
	s.stdin.Close()
	s.p.kill()
	<-s.exited
}

// forward sends the HTTP request in wire form req to the server's API
// and returns its response in wire form. Only the request's path and
// query are kept: whatever host it names, it reaches this server alone.
func (s *toxiServer) forward(req []byte) ([]byte, error) {
	in, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(req)))
	if err != nil {
		return nil, fmt.Errorf("reading the request: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), toxiCallTimeout)
	defer cancel()
	out, err := http.NewRequestWithContext(ctx, in.Method, s.url+in.URL.RequestURI(), in.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", in.Method, in.URL.RequestURI(), err)
	}
	out.Header = in.Header
	out.ContentLength = in.ContentLength
	resp, err := s.client.Do(out)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", in.Method, in.URL.RequestURI(), err)
	}
	defer resp.Body.Close()
	// Held whole, so that the reply says how long it is; a frame carries
	// at most MaxPayload, headers included.
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxPayload-64<<10+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the response: %w", in.Method, in.URL.RequestURI(), err)
	}
	if len(body) > MaxPayload-64<<10 {
		return nil, fmt.Errorf("%s %s: a response of over %d bytes", in.Method, in.URL.RequestURI(), MaxPayload-64<<10)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.TransferEncoding = nil
	var b bytes.Buffer
	if err := resp.Write(&b); err != nil {
		return nil, fmt.Errorf("%s %s: writing the response: %w", in.Method, in.URL.RequestURI(), err)
	}
	return b.Bytes(), nil
}
