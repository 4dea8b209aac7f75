// Package nodes is the contract between election algorithms and the runtimes
// that execute them.
//
// An algorithm is a pure state machine (Machine): it owns no goroutine, clock,
// socket, file or random source. It reacts to events — start, initiation, a
// delivered message, an expired timer, a failure-detector suspicion — and acts
// only through its Env: sending messages, arming timers, deciding a leader.
// The same code therefore runs unchanged in the deterministic simulator
// (nodes/sim) and in a live node process (nodes/live), and every effect is
// counted by the runtime, never by the algorithm.
//
// Algorithms join the registry by name from an init function in their own
// package (nodes/ring, nodes/bully, ...); runtimes and the harness find them
// with Lookup and never import an algorithm package themselves.
//
// Message kinds and timer names are registered once, globally, by name, so
// counts of ELECTION or T1 add up across algorithms and reports can rely on
// stable kind names.
package nodes
