// Package external runs election algorithms written in any language behind
// the nodes.Machine contract, as docs/NODE-PROTOCOL.md specifies: one OS
// process per node, JSON lines on its standard input and output, strictly
// step-synchronous.
//
// A Spec names the program and its topology; Spec.Algorithm (or Register,
// which also registers it with nodes, or nodes.DefineExternal from a
// scenario file) makes it an algorithm like any other, so both runtimes,
// the recorder, the checker and the row builder treat it as they treat a
// built-in one. Its constructor is called once per trial (once per node
// process, live) and gives each machine a program: one kept from an
// earlier trial of the spec if the program declared "reuse" in its
// init_ok (pool.go; it is given a fresh init), otherwise a new one. Every
// step, and the init step, which includes a new program's start-up, is
// bounded by the time the program had: its wall time less the time it
// waited for a CPU (budget.go), so that a busy host does not fail it.
//
// Each event the runtime hands a machine is one step: the adapter writes
// the event's line, then reads the node's lines up to "done" and applies
// each through nodes.Env — a message to a peer is env.Send, a timer
// env.SetTimer, a leader line env.Decide — so everything happens at the
// step's instant, virtual in the simulator, real live. The adapter reads
// no clock but for the step's budget, which only decides whether the node
// failed.
//
// A program's message types and timers become nodes.ExternalKind and
// nodes.ExternalTimer, registered as first seen. A message is a
// nodes.Message whose A is the handle of its body, held for the trial by
// the adapter, and whose B is the body's size, which is what it is
// charged; a live node puts the body itself on the wire
// (nodes.BodyCarrier). A node that misbehaves (garbage, a bad action, a
// flood of output in one step, an exit, a step that never ends) makes the
// machine fail (nodes.Fallible): the runtime ends the trial with an error
// naming the node, the step and the line or exit status. Machines are io.Closers: closing the last of a
// trial's stops and reaps every program it spawned.
//
// Probe drives one program line by line outside any trial, for the
// conformance check (electbench node-check).
package external
