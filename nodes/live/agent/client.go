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
)

// Client is a controller's connection to one agent.
type Client struct {
	addr string
	conn *tls.Conn
	wmu  sync.Mutex
	msgs chan *Msg
	err  error // why msgs closed; read after it has
}

// Dial connects to the agent at addr as the controller holding key,
// accepting only the agent whose key is agent, and waits for its Hello:
// in TLS 1.3 the client's handshake ends before the agent has checked the
// client's certificate, so an agent refusing this controller's key shows
// only then.
func Dial(ctx context.Context, addr string, key ed25519.PrivateKey, agent ed25519.PublicKey) (*Client, error) {
	cfg, err := clientConfig(key, agent)
	if err != nil {
		return nil, err
	}
	d := tls.Dialer{Config: cfg}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("agent at %s: %w", addr, err)
	}
	conn := raw.(*tls.Conn)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	hello, err := readMsg(conn)
	stop()
	if err != nil {
		conn.Close()
		var alert tls.AlertError
		if errors.As(err, &alert) || errors.Is(err, io.EOF) || isRemoteAlert(err) {
			return nil, fmt.Errorf("agent at %s refused this controller (is its key the one the agent pins?): %w", addr, err)
		}
		return nil, fmt.Errorf("agent at %s: waiting for its hello: %w", addr, err)
	}
	if hello.Kind != Hello {
		conn.Close()
		return nil, fmt.Errorf("agent at %s: a frame of kind %d before its hello: %s", addr, hello.Kind, hello.Data)
	}
	c := &Client{addr: addr, conn: conn, msgs: make(chan *Msg, 256)}
	go c.read()
	return c, nil
}

// isRemoteAlert reports whether err is a TLS alert the peer sent, which
// crypto/tls reports as "remote error: tls: ...".
func isRemoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}

// read delivers the agent's frames until the connection ends.
func (c *Client) read() {
	defer close(c.msgs)
	for {
		m, err := readMsg(c.conn)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				c.err = fmt.Errorf("agent at %s: %w", c.addr, err)
			}
			return
		}
		if m.Kind == Hello || m.Kind == Start || m.Kind == Stdin || m.Kind == CloseStdin || m.Kind == Signal || toxiAsk(m.Kind) || m.Kind == Cut || m.Kind == Heal {
			c.err = fmt.Errorf("agent at %s: sent a frame of kind %d, which only a controller sends", c.addr, m.Kind)
			return
		}
		c.msgs <- m
	}
}

// Msgs delivers the agent's Started, Line, Exited, Fail, ToxiReply and Applied frames, in its
// order; it is closed when the connection ends (Err says why).
func (c *Client) Msgs() <-chan *Msg { return c.msgs }

// Err is why Msgs closed: nil for a clean end.
func (c *Client) Err() error { return c.err }

// Send sends a request to the agent.
func (c *Client) Send(m *Msg) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := writeMsg(c.conn, m); err != nil {
		return fmt.Errorf("agent at %s: %w", c.addr, err)
	}
	return nil
}

// Close ends the connection; the agent kills what this controller
// started once its grace period passes.
func (c *Client) Close() error { return c.conn.Close() }
