// Package workloads says what a run does and runs it: the cluster sizes, how
// identities are arranged on the ring, who initiates, how many trials with
// which seeds, and the runner that executes trials in parallel and streams
// one result row per trial, in plan order, whatever the parallelism.
//
// A Spec is parsed from command-line flags or scenario files by the Parse*
// functions here, so both front ends share one grammar and one set of error
// messages. Plan expands a Spec into Trials. Every trial runs through one
// Runtime interface, which takes a trial.Config and returns a trial.Record:
// Run executes trials on the simulator (Sim) in parallel, RunLive on the
// live harness (nodes/live/harness, adapted by its Recorder) one at a time;
// either way one checker judges the trial's events and one row builder
// (row.go) turns record and verdict into a row, handed to the caller as
// soon as every earlier trial has been handed over. workloads imports no
// runtime but the simulator: process control and Toxiproxy stay in the
// harness.
package workloads
