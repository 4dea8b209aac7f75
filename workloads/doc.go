// Package workloads says what a run does and runs it: the cluster sizes, how
// identities are arranged on the ring, who initiates, how many trials with
// which seeds, and the runner that executes trials in parallel and streams
// one result row per trial, in plan order, whatever the parallelism.
//
// A Spec is parsed from command-line flags (or, later, scenario files) by the
// Parse* functions here, so both front ends share one grammar and one set of
// error messages. Plan expands a Spec into Trials; Run executes them on the
// simulator, checks each outcome (Check) and hands rows to the caller as soon
// as every earlier trial has been handed over.
package workloads
