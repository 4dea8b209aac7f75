// Package chaos is the scenario layer: the file format users describe
// experiments in, and the fault model those files speak.
//
// A scenario file (YAML; JSON is accepted, being YAML) names the algorithms,
// the cluster, the network model, the failure detector, a timeline of faults
// and what must hold (expect). Parse reads it strictly: an unknown field, a
// wrong type, a duplicate key or a value out of range is an Error naming the
// file, line, column and field, and every default is applied explicitly
// (Defaults lists them; docs/scenarios.md is generated from the same tables
// the parser uses, see Reference).
//
// The fault model is independent of any runtime. A Fault is one registered
// Kind (crash, pause, partition, latency, loss, ...) with its parameters, a
// start (a time or a trigger), a duration or a heal, and targets written as
// selectors (index, leader, would-be-leader, initiator, highest, lowest,
// random(k), successor(x)). Selectors and partition shapes resolve against a
// World — the simulator's view of a running trial, or a live harness's — at
// the instant a fault starts, because roles such as "the leader" move during
// a run. Each Kind documents its message-level effect in the simulator and
// how the live runtime applies it (a Toxiproxy toxic, a signal, the node's
// link layer). The workloads package maps faults onto the simulator.
//
// The scenarios directory holds the built-in scenario files (Builtin): the
// default run of `electbench run` and a library of classic failure stories.
package chaos
