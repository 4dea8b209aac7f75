package agent

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Kind is a frame's type.
type Kind byte

// The frames. The controller sends Start, Stdin, CloseStdin, Signal,
// ToxiStart, ToxiStop, ToxiRequest, Cut and Heal; the agent sends Hello,
// Started, Line, Exited, Fail, ToxiReply and Applied. A Cut or Heal is a
// request of its own number (ID), from the numbers Start takes, answered
// by an Applied or a Fail of that number.
const (
	Hello       Kind = 1 + iota // Data: the agent's version; sent first, it confirms the handshake
	Start                       // ID: a new process's number; Args: argv; Env: added to the agent's; Addr: a host to listen on, or ""
	Started                     // ID; Code: pid; Addr: the address it listens on; At: when it started
	Stdin                       // ID; Data: bytes for its standard input
	CloseStdin                  // ID
	Signal                      // ID; Code: SigKill, SigStop or SigCont
	Line                        // ID; At: when the agent read it; Code: 1 stdout, 2 stderr; Data: the line without its newline
	Exited                      // ID; At: when it was reaped; Code: its exit status (-1: killed by a signal)
	Fail                        // ID (0: the connection); Data: what failed
	ToxiStart                   // ID: a request's number; starts the host's Toxiproxy server, its API on the host's loopback (toxi.go)
	ToxiStop                    // ID: a request's number; stops it, and its proxies with it
	ToxiRequest                 // ID: a request's number; Data: an HTTP request to its API, in wire form
	ToxiReply                   // ID: the request's; Code: -1 failed (Data: why), else ToxiStart's the server's limit on open files (0: unknown); Data: ToxiRequest's HTTP response, in wire form
	Cut                         // ID; Addr: a host's address; Args: [this host's address]: drop every packet from the one to the other, here
	Heal                        // ID; Addr, Args: as the Cut it takes back
	Applied                     // ID: the Cut's or Heal's; At: when its rule took effect
	lastKind    = Applied
)

// The signals a Signal frame names, by the protocol's own numbers: a
// platform's (SIGSTOP is 19 on Linux, 17 on macOS, where 19 is SIGCONT)
// would mean another signal on an agent of another system.
const (
	SigKill int32 = 1 + iota // a crash
	SigStop                  // a pause
	SigCont                  // its end
)

// Bounds on a frame. A payload carries at most one step line, and the
// harness reads node lines of up to 16 MiB (procs.go), so the agent must
// carry as much.
const (
	MaxPayload = 16<<20 + 4096
	maxStrings = 4096 // entries of Args, of Env
	headerSize = 5    // kind, payload length
)

// Msg is one frame's content; which fields a kind uses is listed with the
// kinds.
type Msg struct {
	Kind Kind
	ID   uint32
	At   int64 // the agent's CLOCK_MONOTONIC, ns
	Code int32
	Addr string
	Args []string
	Env  []string
	Data []byte
}

// ErrFrame is the error of a frame that does not decode.
var ErrFrame = errors.New("agent: malformed frame")

// appendMsg appends m's frame to b.
func appendMsg(b []byte, m *Msg) []byte {
	start := len(b)
	b = append(b, byte(m.Kind), 0, 0, 0, 0)
	b = binary.BigEndian.AppendUint32(b, m.ID)
	b = binary.BigEndian.AppendUint64(b, uint64(m.At))
	b = binary.BigEndian.AppendUint32(b, uint32(m.Code))
	b = appendString(b, m.Addr)
	for _, list := range [][]string{m.Args, m.Env} {
		b = binary.BigEndian.AppendUint32(b, uint32(len(list)))
		for _, s := range list {
			b = appendString(b, s)
		}
	}
	b = append(b, m.Data...)
	binary.BigEndian.PutUint32(b[start+1:], uint32(len(b)-start-headerSize))
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// writeMsg writes m's frame to w, refusing one longer than MaxPayload
// (which the peer would refuse).
func writeMsg(w io.Writer, m *Msg) error {
	b := appendMsg(nil, m)
	if len(b)-headerSize > MaxPayload {
		return fmt.Errorf("agent: a %d frame of %d bytes exceeds %d", m.Kind, len(b)-headerSize, MaxPayload)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("agent: writing a frame: %w", err)
	}
	return nil
}

// readMsg reads one frame from r. io.EOF means the peer closed between
// frames.
func readMsg(r io.Reader) (*Msg, error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("agent: reading a frame's header: %w", err)
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > MaxPayload {
		return nil, fmt.Errorf("%w: payload of %d bytes exceeds %d", ErrFrame, n, MaxPayload)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, fmt.Errorf("agent: reading a frame's %d-byte payload: %w", n, err)
	}
	return decode(Kind(h[0]), p)
}

// decode decodes a frame of kind k whose payload is p.
func decode(k Kind, p []byte) (*Msg, error) {
	if k < Hello || k > lastKind {
		return nil, fmt.Errorf("%w: unknown kind %d", ErrFrame, k)
	}
	d := decoder{p: p}
	m := &Msg{Kind: k, ID: d.u32(), At: int64(d.u64()), Code: int32(d.u32())}
	m.Addr = d.str()
	m.Args = d.strs()
	m.Env = d.strs()
	if d.err != nil {
		return nil, fmt.Errorf("%w: kind %d: %w", ErrFrame, k, d.err)
	}
	if len(d.p) > 0 {
		m.Data = d.p
	}
	return m, nil
}

// decoder reads fields off a payload, remembering the first shortfall.
type decoder struct {
	p   []byte
	err error
}

func (d *decoder) take(n uint64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.p)) {
		d.err = fmt.Errorf("%s of %d bytes, %d left", what, n, len(d.p))
		return nil
	}
	b := d.p[:n]
	d.p = d.p[n:]
	return b
}

func (d *decoder) u32() uint32 {
	if b := d.take(4, "a 32-bit field"); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.take(8, "a 64-bit field"); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (d *decoder) str() string {
	return string(d.take(uint64(d.u32()), "a string"))
}

func (d *decoder) strs() []string {
	n := d.u32()
	if n > maxStrings {
		if d.err == nil {
			d.err = fmt.Errorf("a list of %d strings, at most %d", n, maxStrings)
		}
		return nil
	}
	var list []string
	for range n {
		list = append(list, d.str())
	}
	return list
}
