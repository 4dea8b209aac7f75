package harness

import (
	"io"
	"time"
)

// Options say how live trials run: where Toxiproxy is, how to start a node
// process, and what the harness adds to every trial.
type Options struct {
	// Toxiproxy is the URL of an existing toxiproxy-server; "" embeds one in
	// this process, on loopback. Either way it is driven through its HTTP
	// API, every call with a deadline.
	Toxiproxy string
	// Node is the command that runs one node process, before the node's own
	// flags; nil means this executable with the argument "node" (the
	// electbench binary re-executed as `electbench node`). It must be the
	// harness's own binary: a node whose registry of kinds and timers
	// differs is refused (live.CheckRegistry).
	Node []string
	// Server is the command that runs one Toxiproxy server process, for a
	// cluster the harness process cannot hold alone (Servers); nil means
	// this executable with the argument "toxiproxy-server".
	Server []string
	// Netns, when above 0, runs the nodes on that many hosts made of
	// network namespaces joined by a bridge (hostns; root only), dealt
	// in blocks of spawn indices, and removes them at Close; 0 runs them
	// on this host's loopback.
	Netns int
	// Agents, with Netns, runs the nodes through an agent in each host
	// (`electbench agent`, started by the harness in the host's
	// namespace and reached over its pinned-key TLS connection), as
	// hosts of their own would run them: the agent opens each node's
	// socket on its host, relays its lines and delivers its signals,
	// and runs the host's Toxiproxy server (agents_toxi.go).
	Agents bool
	// Hosts, when set, runs the nodes on hosts of their own through
	// their agents, started by hand (ReadHosts); not with Netns.
	Hosts *Hosts
	// Agent is the command that runs one agent, before its flags; nil
	// means this executable with the argument "agent".
	Agent []string
	// ClockOffsets, with Netns, shift each host's CLOCK_MONOTONIC by its
	// entry (one per host; Linux time namespaces): the harness estimates
	// the offsets back from round trips (clock.go). Empty: no shift.
	ClockOffsets []time.Duration
	// Env is added to the environment of every node and server process.
	Env []string
	// Bits is the puzzle difficulty of node identities, minted by each node
	// at its start and required of every peer; 0 means live.DefaultBits.
	Bits int
	// Allowance is added to the link latency in the unit T that algorithm
	// parameters are written in ("T1 = 2T"): a live message takes T plus
	// the processing of two runtimes and a proxy, and a timer of exactly a
	// round trip would fire ahead of its answer. 0 means max(5ms, T/2)
	// (trial.LiveUnit): generous, because a loaded host delays processes
	// by milliseconds.
	// Records still use the configured latency as T.
	Allowance time.Duration
	// Forge makes node k (in spawn order, 0..N-1) present a dishonest
	// identity, one of live.ForgeModes: its peers must refuse it.
	Forge map[int]string
	// Log receives the nodes' diagnostics and the harness's notes.
	Log io.Writer
	// SetupTimeout bounds starting, identifying and linking a cluster; 0
	// means 30 s plus 1 s per node.
	SetupTimeout time.Duration
	// Observe, when set, is told what a trial acquired once its cluster is
	// up: tests check that all of it is released.
	Observe func(Info)
	// Progress, when set, is told how each trial's set-up goes (Setup):
	// every stage's first and last state, and in between at most one call
	// per 100 ms, ending with Running. It is called on the trial's
	// goroutine, between the harness's steps, and must return at once.
	Progress func(Setup)
}
