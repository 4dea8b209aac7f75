package live

import (
	"context"
	"io"
	"net"
	"time"

	"github.com/electbench/electbench/pow"
)

// Options configure one node process.
type Options struct {
	// Identity is this node's minted identity and key (see LoadOrMint).
	Identity *pow.Key
	// Show is the identity presented to peers; nil means Identity's own.
	// Only tests of refusal set it (see Forge).
	Show *pow.Identity
	// Challenge is the harness's, signed in hello with Identity's key
	// (ProveToHarness): the harness excludes a node only on what it
	// checked itself, and this is how it checks the key.
	Challenge string
	// Listener accepts peers' connections; nil listens on 127.0.0.1:0.
	Listener net.Listener
	// Dial opens a connection to a link's address; nil uses TCP.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// Mono reads the host's shared monotonic clock in nanoseconds, the clock
	// of the harness's t0; nil uses Mono.
	Mono func() int64
	// Log receives diagnostics, one line each; nil discards them.
	Log io.Writer
	// HandshakeTimeout bounds each handshake; 0 means 10 s.
	HandshakeTimeout time.Duration
	// HelloTimeout bounds how long an accepted connection may take to
	// send its HELLO, which an honest dialer sends first thing; 0 means
	// DefaultHelloTimeout. A connection that says nothing holds a
	// handshake slot no longer (the slowloris).
	HelloTimeout time.Duration
	// StateDir keeps the machine's stable state (nodes.StableStore: etcd-
	// raft's hard state and log) in StableFile across a crash and restart of
	// the process; "" keeps it in memory, where a restart loses it. The
	// harness gives each node of a trial its own fresh directory, the one
	// its identity is kept in, so nothing carries over from trial to trial.
	StateDir string
	// MaxPending bounds the accepted connections still in their handshake;
	// more are closed unread. 0 means DefaultMaxPending.
	MaxPending int
	// MaxEarly bounds the messages one peer may send before start (they
	// wait for it in memory), counted by the peer's identity across all
	// its connections and EPOCH frames; one more closes its link as a
	// protocol error. 0 means DefaultMaxEarly.
	MaxEarly int
}

// StableFile is the name of the stable state's file in Options.StateDir.
const StableFile = "stable.state"

// Defaults of Options' bounds. A run has at most 127 peers, each with one
// link in: DefaultMaxPending leaves room for every peer to redial at once.
// Before start a peer has no reason to send anything but a message of its
// own early start; DefaultMaxEarly is far beyond what any algorithm's first
// step sends (at most one message per peer and kind).
const (
	DefaultMaxPending   = 256
	DefaultMaxEarly     = 1024
	DefaultHelloTimeout = time.Second
)
