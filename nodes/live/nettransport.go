package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// netTransport is the transport over TCP: a goroutine dials and watches
// each link out (dialLoop), one accepts the peers' connections
// (acceptLoop) and one serves each of them (serve), all started by the
// node's first configure and ended by close.
//
// Its fields have three owners, and the locking follows them:
//   - fixed at construction and then only read: hs, ln, dialer, post,
//     logf, done (the handshakes read the trial's policy from
//     view; hs's cache of decoded identities and its gate lock
//     themselves);
//   - shared with the connections' goroutines: view and running (atomics;
//     a roster is replaced whole, never written), frames and shed (atomic
//     counters), and pending (MaxPending handshake slots), in and early
//     (behind their own mutexes); of a link, addr, want, quit and wake, fixed when it
//     is made;
//   - the node's goroutine's alone: links, byAddr, accepting and wbuf,
//     and of every link its conn, sess, final, refused, down, epoch and
//     drops. A connection's goroutine changes a link only through an event
//     whose apply runs on the node's goroutine (linkUp, linkDown,
//     linkRefused), so only that goroutine writes to a link's conn.
type netTransport struct {
	hs     *Handshaker
	ln     net.Listener
	dialer func(ctx context.Context, addr string) (net.Conn, error)
	post   func(event) bool // to the node's goroutine; false once it stopped
	logf   func(format string, args ...any)
	done   <-chan struct{} // closed when the node stops
	wg     sync.WaitGroup  // the goroutines, waited for by close

	view    atomic.Pointer[roster]
	running atomic.Bool  // the machine runs: serve stops counting early messages
	frames  frameCounts  // by the handshakes' Count and by send
	shed    atomic.Int64 // connections closed unread (acceptLoop)
	pending *handshakes  // a slot per connection in its handshake
	in      connSet      // accepted connections, closed at close
	early   earlyBudget  // messages held before start, by peer

	links     []*link // by position; nil where no link is configured
	byAddr    map[string]*link
	accepting bool
	wbuf      []byte
}

// link is one outgoing link. Only the node's goroutine writes to conn. A
// link is known by its address, which leads to the same peer process for
// the node's whole life (a kept cluster's proxy between two processes):
// a later configure gives it the peer's position in that trial.
type link struct {
	to   int
	addr string
	want nodes.ID      // the peer's identity, fixed with addr
	quit chan struct{} // closed when a configure drops the link
	// wake cuts a down link's wait between dials short (the "redial"
	// command: the harness healed a cut or rewired a restarted peer).
	wake    chan struct{}
	conn    net.Conn // nil while down
	sess    *Session // conn's: seals every frame written to it
	final   bool     // up once, or refused: counts towards "linked"
	refused bool
	down    error  // why the link last went down
	epoch   uint64 // the epoch conn's peer was last told (markEpoch)
	drops   int64  // messages dropped since the link last came up (send logs a few)
}

var _ transport = (*netTransport)(nil)

// newNetTransport listens (unless o gives a listener) and prepares the
// handshakes; nothing runs before the first configure.
func newNetTransport(o Options, post func(event) bool, done <-chan struct{}, logf func(string, ...any)) (*netTransport, error) {
	t := &netTransport{
		ln: o.Listener, dialer: o.Dial, post: post, logf: logf, done: done,
		early:   earlyBudget{max: o.MaxEarly, held: map[nodes.ID]int{}},
		pending: newHandshakes(o.MaxPending),
		in:      connSet{m: map[net.Conn]bool{}},
		byAddr:  map[string]*link{},
	}
	t.hs = &Handshaker{Key: o.Identity, Show: o.Show, Timeout: o.HandshakeTimeout, HelloTimeout: o.HelloTimeout, Count: t.frames.add, Gate: NewGate(),
		trial: func() *pow.Policy { return &t.view.Load().policy }}
	t.view.Store(&roster{})
	if t.ln == nil {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("live: listening: %w", err)
		}
		t.ln = ln
	}
	return t, nil
}

func (t *netTransport) addr() string { return t.ln.Addr().String() }

func (t *netTransport) configure(r *roster, links []Link) error {
	if err := t.vouch(r); err != nil {
		return err
	}
	t.view.Store(r)
	// The links: those of an earlier trial whose address is named again
	// are kept, up or not, with the peer's new position; the others are
	// dropped, and new ones dialled.
	num := len(r.ranks)
	t.links = make([]*link, num)
	keep := map[string]bool{}
	for _, cl := range links {
		if cl.To < 0 || cl.To >= num || cl.To == r.self || t.links[cl.To] != nil || keep[cl.Addr] {
			return fmt.Errorf("live: bad link to position %d", cl.To)
		}
		keep[cl.Addr] = true
		want := r.ranks[cl.To].ID
		l := t.byAddr[cl.Addr]
		switch {
		case l == nil:
			l = &link{to: cl.To, addr: cl.Addr, want: want, quit: make(chan struct{}), wake: make(chan struct{}, 1)}
			t.byAddr[cl.Addr] = l
			t.wg.Add(1)
			go t.dialLoop(l)
		case l.want != want:
			return fmt.Errorf("live: the link at %s leads to %s, not to position %d's %s", cl.Addr, l.want, cl.To, want)
		default:
			// Up now, or to be waited for again: "linked" says every
			// link is up at the start of this trial too.
			l.to, l.final = cl.To, l.conn != nil || l.refused
		}
		t.links[cl.To] = l
	}
	for addr, l := range t.byAddr {
		if !keep[addr] {
			close(l.quit)
			if l.conn != nil {
				l.conn.Close()
			}
			delete(t.byAddr, addr)
		}
	}
	if !t.accepting {
		t.accepting = true
		t.wg.Add(1)
		go t.acceptLoop()
	}
	return nil
}

// vouch tells the gate of the identities the roster vouches for, decoded
// through the handshaker's cache, where the peers' HELLOs, showing the
// same files, then find them, and the handshaker of the certificates it
// vouches for (vouchCerts). Both are in place before configure stores the
// roster and dials: the handshakes this configure starts find them.
func (t *netTransport) vouch(r *roster) error {
	if err := t.vouchCerts(r); err != nil {
		return err
	}
	var ids []*pow.Identity
	for pos, file := range r.vouched {
		if file == "" || pos == r.self {
			continue
		}
		id, err := t.hs.decode([]byte(file))
		if err != nil {
			return fmt.Errorf("live: the identity vouched for at position %d: %w", pos, err)
		}
		if pos >= len(r.ranks) || id.ID != r.ranks[pos].ID {
			return fmt.Errorf("live: the identity vouched for at position %d is %s, not that position's", pos, id.ID)
		}
		ids = append(ids, id)
	}
	t.hs.Gate.vouch(ids)
	return nil
}

// vouchCerts decodes the roster's vouched certificates (VouchedCert) and
// records them as checked under their position's id. All decode, or none
// is recorded.
func (t *netTransport) vouchCerts(r *roster) error {
	var ids []nodes.ID
	var ephs, certs [][]byte
	for pos, s := range r.vouchedCerts {
		if s == "" || pos == r.self {
			continue
		}
		if pos >= len(r.ranks) {
			return fmt.Errorf("live: a certificate vouched for at position %d, beyond the roster's %d", pos, len(r.ranks))
		}
		eph, cert, err := ParseVouchedCert(s)
		if err != nil {
			return fmt.Errorf("live: the certificate vouched for at position %d: %w", pos, err)
		}
		ids, ephs, certs = append(ids, r.ranks[pos].ID), append(ephs, eph), append(certs, cert)
	}
	t.hs.vouchCerts(ids, ephs, certs)
	return nil
}

func (t *netTransport) epoch() uint64            { return t.view.Load().epoch }
func (t *netTransport) position(id nodes.ID) int { return t.view.Load().position(id) }
func (t *netTransport) start()                   { t.running.Store(true) }

func (t *netTransport) settled() (all bool, up, refused int) {
	for _, l := range t.links {
		switch {
		case l == nil:
		case !l.final:
			return false, 0, 0
		case l.refused:
			refused++
		default:
			up++
		}
	}
	return true, up, refused
}

func (t *netTransport) redial() {
	for _, l := range t.links {
		if l != nil && l.conn == nil && !l.refused {
			select {
			case l.wake <- struct{}{}:
			default:
			}
		}
	}
}

func (t *netTransport) counts() linkCounts {
	c := linkCounts{shed: t.shed.Load()}
	t.frames.load(&c)
	return c
}

func (t *netTransport) reset() {
	r := *t.view.Load()
	r.epoch = noEpoch
	t.view.Store(&r)
	t.running.Store(false)
	t.frames.reset()
	t.shed.Store(0)
	t.early.reset()
}

// close closes every connection and the listener, so that each goroutine
// blocked in a read or an accept ends, and waits for them.
func (t *netTransport) close() {
	t.in.closeAll()
	t.ln.Close()
	for _, l := range t.byAddr {
		if l.conn != nil {
			l.conn.Close()
		}
	}
	t.wg.Wait()
}

// send writes m, or an external program's body in a SEALED-BODY frame, on
// the link to position to.
func (t *netTransport) send(to int, m nodes.Message, body []byte) (dropped bool, err error) {
	l := t.links[to]
	if l == nil || l.conn == nil {
		if l != nil && l.final && !l.refused {
			l.drops++
			if logDrop(l.drops) {
				t.logf("link to peer %d is down (%v): %s dropped (%d since it went down)", to, l.down, m.Kind, l.drops)
			}
		}
		return true, nil
	}
	t.wbuf = t.wbuf[:0]
	t.markEpoch(l)
	kind := FrameSealed
	if body != nil {
		kind = FrameSealedBody
		if t.wbuf, _, err = l.sess.AppendBody(t.wbuf, m.Kind, body); err != nil {
			// Too large for a frame: the program's mistake.
			if len(t.wbuf) > 0 {
				// The EPOCH frame was sealed in the link's sequence:
				// it must go, or the next frame would not open.
				l.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
				if _, werr := l.conn.Write(t.wbuf); werr != nil {
					l.conn.Close()
					l.conn = nil
				}
			}
			return true, err
		}
	} else if t.wbuf, _, err = l.sess.AppendMessage(t.wbuf, m); err != nil {
		return true, err
	}
	l.conn.SetWriteDeadline(time.Now().Add(2 * time.Second))
	if _, err := l.conn.Write(t.wbuf); err != nil {
		t.logf("writing to peer %d: %v", to, err)
		l.conn.Close() // the dialer sees it and redials
		l.conn = nil
		return true, nil
	}
	t.frames.sent[kind].Add(1)
	return false, nil
}

// markEpoch starts the frames of the next message on link l with an
// EPOCH frame when the link has not said yet that what follows belongs to
// this trial (l.epoch; a connection starts in epoch 0): a message still in
// flight from the last trial is then recognised as stale however late it
// arrives. Said before a link's first message of the trial, in the same
// write, it costs a link that carries none nothing.
func (t *netTransport) markEpoch(l *link) {
	e := t.epoch()
	if l.epoch == e {
		return
	}
	t.wbuf = l.sess.AppendEpoch(t.wbuf, e)
	l.epoch = e
	t.frames.sent[FrameEpoch].Add(1)
}

// linkUp, linkDown and linkRefused are the changes a link's goroutine asks
// of the node's (event.apply): the link to l.to came up on c, broke, or
// refused the peer. to is the link's position (-1: nothing to settle) and
// first whether it settles for the first time in the trial.
func (t *netTransport) linkUp(l *link, c net.Conn, sess *Session) (to int, first bool) {
	if l.conn != nil && l.conn != c {
		l.conn.Close()
	}
	l.conn, l.sess, l.epoch, l.drops = c, sess, 0, 0
	first, l.final = !l.final, true
	return l.to, first
}

func (t *netTransport) linkDown(l *link, c net.Conn, err error) (to int, first bool) {
	// Peers going away at the end of a run is no news; a message that
	// finds the link down is (send logs it).
	if l.conn == c {
		l.conn, l.down = nil, err
	}
	return -1, false
}

func (t *netTransport) linkRefused(l *link) (to int, first bool) {
	first, l.final, l.refused = !l.final, true, true
	return l.to, first
}

func (t *netTransport) dial(ctx context.Context, addr string) (net.Conn, error) {
	if t.dialer != nil {
		return t.dialer(ctx, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// dialLoop keeps link l up: dial, handshake, then watch the connection
// until it breaks and dial again. A refused handshake ends it: identities
// do not change within a run.
func (t *netTransport) dialLoop(l *link) {
	defer t.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-t.done:
			cancel()
		case <-l.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	backoff := 2 * time.Millisecond
	for {
		up, err := t.dialOnce(ctx, l)
		if _, ok := isRefusal(err); ok {
			t.post(event{kind: evRefused, side: "dial", err: err, apply: func() (int, bool) { return t.linkRefused(l) }})
			return
		}
		if up {
			backoff = 2 * time.Millisecond
		}
		select {
		case <-t.done:
			return
		case <-l.quit:
			return
		case <-l.wake:
			backoff = 2 * time.Millisecond
			continue
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 100*time.Millisecond)
	}
}

// dialOnce dials, shakes hands and, once the link is up, watches it until it
// breaks. up says whether it got that far.
func (t *netTransport) dialOnce(ctx context.Context, l *link) (up bool, err error) {
	c, err := t.dial(ctx, l.addr)
	if err != nil {
		return false, err
	}
	// Closing c is how the node's stop unblocks a handshake or a read.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-cctx.Done()
		c.Close()
	}()
	fr, sess, err := t.hs.Dial(c, l.want)
	if err != nil {
		return false, err
	}
	if !t.post(event{kind: evLink, apply: func() (int, bool) { return t.linkUp(l, c, sess) }}) {
		return true, nil
	}
	// Nothing more comes this way on a healthy link: reading only notices
	// the end (the peer died, a proxy was disabled).
	for {
		if _, err = fr.Next(); err != nil {
			break
		}
	}
	why := err // err is the result, which the return below overwrites
	t.post(event{kind: evLink, apply: func() (int, bool) { return t.linkDown(l, c, why) }})
	return true, nil
}

// acceptLoop accepts peers' connections until close. A failed Accept (out
// of file descriptors after a flood, a connection aborted before it was
// taken) is transient: it is logged and retried after a back-off, so the
// node never stops accepting while it runs. A connection beyond MaxPending
// handshakes is closed unread.
func (t *netTransport) acceptLoop() {
	defer t.wg.Done()
	var backoff time.Duration
	for {
		c, err := t.ln.Accept()
		if err != nil {
			select {
			case <-t.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			t.logf("accepting a connection: %v (retrying in %v)", err, backoff)
			select {
			case <-t.done:
				return
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		ok, evicted := t.pending.admit(c)
		if !ok || evicted {
			if k := t.shed.Add(1); k&(k-1) == 0 { // log the 1st, 2nd, 4th, 8th, ...
				t.logf("%d connections in their handshake already: closing one (%d so far)", t.pending.max, k)
			}
		}
		if !ok {
			c.Close()
			continue
		}
		if !t.in.add(c) {
			c.Close()
			return
		}
		t.wg.Add(1)
		go t.serve(c)
	}
}

// serve runs the acceptor's handshake on c, then delivers its frames.
func (t *netTransport) serve(c net.Conn) {
	defer t.wg.Done()
	defer func() {
		c.Close()
		t.in.remove(c)
	}()
	var peer nodes.ID
	from, fr, sess, err := t.hs.Accept(c, func(id nodes.ID) (int, bool) {
		r := t.view.Load()
		p, ok := r.byID[id]
		peer = id
		if ok && p != r.self {
			t.pending.claim(c, id) // a roster id: a reserved slot
			return p, true
		}
		return p, false
	})
	t.pending.done(c)
	if err != nil {
		// from is -1: the connection proved no identity, so its refusal
		// is anonymous whatever id it claimed.
		if _, ok := isRefusal(err); ok {
			t.post(event{kind: evRefused, from: from, side: "accept", err: err})
		}
		return
	}
	t.readFrames(peer, fr, sess)
}

// readFrames turns the frames of an accepted connection from peer into
// the node's events until the connection ends or breaks the protocol.
func (t *netTransport) readFrames(peer nodes.ID, fr *FrameReader, sess *Session) {
	// The frames belong to epoch 0 until the peer says otherwise (an
	// EPOCH frame, in a kept cluster's later trials).
	var epoch uint64
	for {
		f, err := fr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				t.logf("link from peer %s: %v", peer, err)
			}
			return
		}
		var ev event
		switch f.Kind {
		case FrameEpoch:
			if epoch, err = sess.OpenEpoch(f); err != nil {
				t.post(event{kind: evProtocol, peer: peer, err: err})
				return
			}
			continue
		case FrameSealedBody:
			k, body, err := sess.OpenBody(f)
			if err != nil {
				t.post(event{kind: evProtocol, peer: peer, err: err})
				return
			}
			// The body aliases the reader's buffer: keep a copy.
			body = append([]byte(nil), body...)
			ev = event{kind: evMsg, peer: peer, epoch: epoch, msg: nodes.Message{Kind: k, B: int64(len(body))}, size: len(body), body: body}
		default:
			m, err := sess.Open(f)
			if err != nil {
				t.post(event{kind: evProtocol, peer: peer, err: err})
				return
			}
			ev = event{kind: evMsg, peer: peer, epoch: epoch, msg: m, size: len(f.Payload)}
		}
		if !t.running.Load() && epoch == t.epoch() {
			// Held in memory until start: a peer may not grow that
			// without bound. (Another trial's messages are dropped.)
			if !t.early.take(peer) {
				t.post(event{kind: evProtocol, peer: peer, err: fmt.Errorf("more than %d messages before start", t.early.max)})
				return
			}
		}
		if !t.post(ev) {
			return
		}
	}
}

// earlyBudget bounds the messages each peer may have held before start:
// counted by the peer's identity, across all its connections and frames,
// so that neither reconnecting nor an EPOCH frame starts a fresh count
// (the 36 MB to 2.58 GB). Only reset clears it, between trials.
type earlyBudget struct {
	max  int
	mu   sync.Mutex
	held map[nodes.ID]int // only roster peers' ids reach it (a handshake proved each)
}

// take counts one more message of peer's, false beyond the bound.
func (b *earlyBudget) take(peer nodes.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held[peer] >= b.max {
		return false
	}
	b.held[peer]++
	return true
}

func (b *earlyBudget) reset() {
	b.mu.Lock()
	clear(b.held)
	b.mu.Unlock()
}

// connSet is the accepted connections, closed all at once when the node
// stops; one accepted after that is refused.
type connSet struct {
	mu     sync.Mutex
	m      map[net.Conn]bool
	closed bool
}

func (s *connSet) add(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.m[c] = true
	return true
}

func (s *connSet) remove(c net.Conn) {
	s.mu.Lock()
	delete(s.m, c)
	s.mu.Unlock()
}

func (s *connSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for c := range s.m {
		c.Close()
	}
}
