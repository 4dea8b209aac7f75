package agent

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes/live"
)

// DefaultGrace is how long an agent keeps its processes after its
// controller's connection goes away, waiting for it to return: long
// enough for a reconnect, short enough that a dead controller's nodes do
// not outlive it by much.
const DefaultGrace = 5 * time.Second

// handshakeTimeout bounds a TLS handshake, so that a peer that connects
// and says nothing does not hold the agent's only controller slot.
const handshakeTimeout = 10 * time.Second

// Options configure an agent.
type Options struct {
	Key        ed25519.PrivateKey // the agent's own key
	Controller ed25519.PublicKey  // the only controller key it accepts
	Grace      time.Duration      // see DefaultGrace; 0 means DefaultGrace
	Version    string             // sent in Hello
	Log        io.Writer          // refusals and the processes' standard error; nil discards
	// Toxiproxy is the command of the host's Toxiproxy server
	// (`electbench toxiproxy-server`), to which the agent appends
	// "--listen 127.0.0.1"; nil: the agent refuses ToxiStart.
	Toxiproxy []string
}

// Agent runs processes for one controller at a time.
type Agent struct {
	opt   Options
	cfg   *tls.Config
	mu    sync.Mutex
	out   *session // the controller's connection; nil while none
	procs map[uint32]*proc
	grace *time.Timer // the kill after the controller left; nil while one is connected
	toxi  *toxiServer // the host's Toxiproxy server; nil while none runs
	cuts  cuts        // packets dropped into this host (cut.go)
}

// New makes an agent; it serves nothing until Serve.
func New(opt Options) (*Agent, error) {
	if opt.Grace == 0 {
		opt.Grace = DefaultGrace
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if len(opt.Controller) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("agent: the controller's key is %d bytes, want %d", len(opt.Controller), ed25519.PublicKeySize)
	}
	cfg, err := serverConfig(opt.Key, opt.Controller)
	if err != nil {
		return nil, err
	}
	return &Agent{opt: opt, cfg: cfg, procs: make(map[uint32]*proc)}, nil
}

// Serve accepts controllers on ln until ctx ends or ln fails, then kills
// every process it started.
func (a *Agent) Serve(ctx context.Context, ln net.Listener) error {
	a.cuts.listening(listenAddr(ln))
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer a.killAll()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("agent: accepting on %s: %w", ln.Addr(), err)
		}
		go a.serveConn(conn)
	}
}

// serveConn authenticates a controller and runs its requests until it
// leaves.
func (a *Agent) serveConn(raw net.Conn) {
	conn := tls.Server(raw, a.cfg)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(handshakeTimeout))
	if err := conn.Handshake(); err != nil {
		fmt.Fprintf(a.opt.Log, "agent: refused %s: %v\n", raw.RemoteAddr(), err)
		return
	}
	conn.SetDeadline(time.Time{})
	s := &session{w: conn}
	if err := a.attach(s); err != nil {
		fmt.Fprintf(a.opt.Log, "agent: refused %s: %v\n", raw.RemoteAddr(), err)
		s.send(&Msg{Kind: Fail, Data: []byte(err.Error())})
		return
	}
	defer a.detach(raw.RemoteAddr())
	if err := s.send(&Msg{Kind: Hello, Data: []byte(a.opt.Version)}); err != nil {
		return
	}
	for {
		m, err := readMsg(conn)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fmt.Fprintf(a.opt.Log, "agent: controller %s: %v\n", raw.RemoteAddr(), err)
			}
			return
		}
		if err := a.handle(m); err != nil {
			s.send(&Msg{Kind: Fail, ID: m.ID, Data: []byte(err.Error())})
		}
	}
}

// attach makes s the controller's connection, cancelling the kill its
// predecessor's departure scheduled: a controller that reconnects within
// the grace period keeps its processes.
func (a *Agent) attach(s *session) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.out != nil {
		return errors.New("agent: a controller is already connected")
	}
	if a.grace != nil {
		a.grace.Stop()
		a.grace = nil
	}
	a.out = s
	return nil
}

// detach forgets the controller and schedules the kill of every process unless a
// controller attaches within the grace period.
func (a *Agent) detach(from net.Addr) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.out = nil
	fmt.Fprintf(a.opt.Log, "agent: controller %s left; its %d processes die in %v unless it returns\n", from, len(a.procs), a.opt.Grace)
	var t *time.Timer
	t = time.AfterFunc(a.opt.Grace, func() {
		a.mu.Lock()
		mine := a.grace == t
		a.mu.Unlock()
		if mine {
			a.killAll()
		}
	})
	a.grace = t
}

// send sends m to the controller, if one is connected; a line printed
// while none is is lost, as the trial it belonged to is.
func (a *Agent) send(m *Msg) {
	a.mu.Lock()
	s := a.out
	a.mu.Unlock()
	if s != nil {
		s.send(m)
	}
}

// handle carries out one request of the controller.
func (a *Agent) handle(m *Msg) error {
	switch m.Kind {
	case Start:
		return a.start(m)
	case Cut, Heal:
		return a.cutRequest(m)
	case Stdin, CloseStdin, Signal:
		a.mu.Lock()
		p := a.procs[m.ID]
		a.mu.Unlock()
		if p == nil {
			return fmt.Errorf("agent: no process %d", m.ID)
		}
		switch m.Kind {
		case Stdin:
			return p.write(m.Data)
		case CloseStdin:
			return p.closeStdin()
		}
		return p.signal(m.Code)
	case ToxiStart, ToxiStop, ToxiRequest:
		a.handleToxi(m)
		return nil
	}
	return fmt.Errorf("agent: a controller does not send a frame of kind %d", m.Kind)
}

// killAll kills every process the agent started, its Toxiproxy server
// among them, and removes every rule it made: what the controller left,
// or what a stopped agent leaves.
func (a *Agent) killAll() {
	a.stopToxi()
	if err := a.cuts.close(); err != nil {
		fmt.Fprintf(a.opt.Log, "agent: %v\n", err)
	}
	a.mu.Lock()
	ps := make([]*proc, 0, len(a.procs))
	for _, p := range a.procs {
		ps = append(ps, p)
	}
	a.mu.Unlock()
	for _, p := range ps {
		p.kill()
	}
}

// session is a connection to a controller; writers share it.
type session struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *session) send(m *Msg) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return writeMsg(s.w, m)
}

// now is the agent's clock for the timestamps it sends.
func now() int64 { return live.Mono() }
