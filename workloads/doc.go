// Package workloads says what a run does and runs it: the cluster sizes, how
// identities are arranged on the ring, who initiates, how many trials with
// which seeds, and the runner that executes trials in parallel and streams
// one result row per trial, in plan order, whatever the parallelism.
//
// A Spec is parsed from command-line flags or scenario files by the Parse*
// functions here, so both front ends share one grammar and one set of error
// messages. Plan expands a Spec into Trials. Every trial runs through one
// Runtime interface, which takes a trial.Config and returns a trial.Record.
// An Executor runs a whole plan (executor.go): simulated trials (Sim) in
// parallel, live ones (the harness, nodes/live/harness, adapted by its
// Recorder and wired in by the command) one at a time, skipping those a
// resumed run or another shard has, spooling traces, stopping at an
// interrupt or an infrastructure failure, and telling an Observer what it
// does. RunTrial runs one trial.Config and returns its record, verdict and
// row. Either way one checker judges the trial's events and one row
// builder (row.go) turns record and verdict into a row, handed to the
// caller as soon as every earlier trial has been handed over. What each
// runtime can run is declared once (trial.Capabilities: sim.Capabilities,
// live.Capabilities) and the checks here read it. workloads imports no
// runtime's machinery but the simulator's: process control and Toxiproxy
// stay in the harness.
package workloads
