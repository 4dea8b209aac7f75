// Package hraft registers hashicorp-raft: HashiCorp's Raft
// (github.com/hashicorp/raft v1.8.0, the election inside Consul, Nomad and
// Vault) run unchanged as a live-only algorithm (nodes.Library,
// nodes.Algorithm.LiveOnly): the library runs its own goroutines, reads
// real clocks and draws its timeouts from the global math/rand, so it
// cannot be stepped by the simulator.
//
// Each process is one server, raft.NewRaft with this package's transport
// (transport.go: each RPC a nodes.Message of the RPC's name, the body the
// library's msgpack encoding, sent through the node's links), a
// raft.InmemStore log that starts from the configuration of every server,
// a raft.StableStore over the node's stable storage (stable.go), so that a
// restarted server remembers its term and vote, and an in-memory snapshot
// store. Leadership comes from the library's observer
// (raft.LeaderObservation) and is decided as it changes.
//
// The variants are the library's defaults (pre-vote on) and no-prevote
// (Config.PreVoteDisabled); its timing knobs are parameters in the
// harness's units, checked by raft.ValidateConfig when the run is planned.
// docs/LIBRARIES.md says how the library is driven and derives its
// failover bounds.
package hraft
