package nodes

import (
	"fmt"
	"io"
	"time"
)

// Library is the live-only contract (Algorithm.LiveOnly): election code run
// unchanged that owns its goroutines and reads real clocks, such as
// hashicorp/raft, so that it cannot be a Machine. It runs inside a live node
// process; whatever it says to its peers goes through the node's links as
// Messages, so the runtime counts them by kind and size, the node's loss and
// slow faults and Toxiproxy's act on them, and crash (SIGKILL), pause
// (SIGSTOP) and restart act on the whole process as for every algorithm.
//
// An algorithm registers a library by returning Hosted(lib) from its New:
// the constructor builds the library and starts nothing, since a plan
// builds one to measure it.
type Library interface {
	// Start begins the library's work in this process: it may start
	// goroutines and timers, which use host from then on. An error ends
	// the trial with it (the row's error column).
	Start(host Host) error
	// Deliver hands the library one message received from peer from. It is
	// called on the node's goroutine and must not block: a library that
	// answers later queues the message.
	Deliver(from PeerID, m Message)
	// Stop ends every goroutine the library started and returns once they
	// have ended: the trial is over, or the node stops. Nothing of the
	// library outlives it.
	Stop()
}

// Host is the environment a Library sees: the Env of a machine, less the
// timers and random source it brings itself, and safe to call from any of
// its goroutines. Sends and decisions are handed to the node's goroutine
// and recorded there in order, as a step of their own, so a library's
// traffic is counted and faulted exactly as a machine's.
type Host interface {
	Self() Rank
	// Peers is Env.Peers: on a complete graph every process, this one
	// included, in ascending rank order.
	Peers() []Peer
	// Now is Env.Now: the time since the run's start on the harness's clock.
	Now() time.Duration
	// Send sends one message; it never blocks. The message's kind carries
	// what the checker reads (Quorum: a term in A, a vote's grant in B) and
	// Body the library's own encoding, at most MaxBodySize bytes.
	Send(to PeerID, m Message)
	// Decide records this process's belief about the leader.
	Decide(leader Rank)
	// Stable is this process's stable storage, which survives a crash and
	// a restart of the process (a file in the node's directory) and is
	// emptied between trials; safe for concurrent use.
	Stable() StableStore
	// Log is where the library writes its own log lines: the node's log.
	Log() io.Writer
}

// Hosting is implemented by a runtime's Env that can host a Library: the
// live node's. The simulator's cannot, and refuses a live-only algorithm
// before it runs (trial.Capabilities.CheckAlgorithm).
type Hosting interface {
	Host() Host
}

// Hosted is the Machine a live-only algorithm's New returns for lib: it
// starts lib with the runtime's Host at Start, hands it every message
// received, and stops it when the runtime closes the machine (io.Closer,
// at a reset, a restart or the node's end). Timers, initiations and
// suspicions are the library's own business: it keeps its own clocks.
func Hosted(lib Library) Machine { return &hosted{lib: lib} }

type hosted struct {
	lib     Library
	started bool
	err     error
}

func (h *hosted) Start(env Env) {
	host, ok := env.(Hosting)
	if !ok {
		// The simulator refuses a live-only algorithm before it runs
		// (trial.Capabilities.CheckAlgorithm); a caller that skipped the
		// check gets a failed trial, not a crash.
		h.err = fmt.Errorf("a live-only algorithm cannot run on this runtime (%T)", env)
		return
	}
	if err := h.lib.Start(host.Host()); err != nil {
		h.err = fmt.Errorf("starting the library: %w", err)
		return
	}
	h.started = true
}

func (h *hosted) Initiate(Env)         {}
func (h *hosted) Timeout(Env, TimerID) {}
func (h *hosted) Suspect(Env, PeerID)  {}
func (h *hosted) Err() error           { return h.err }
func (h *hosted) Receive(_ Env, from PeerID, m Message) {
	if h.started {
		h.lib.Deliver(from, m)
	}
}

// Close stops the library once; a library never started has nothing to stop.
func (h *hosted) Close() error {
	if h.started {
		h.started = false
		h.lib.Stop()
	}
	return nil
}
