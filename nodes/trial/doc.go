// Package trial is what a trial is, whatever runs it: its configuration
// (Config), the runtime-neutral models it names (latency models, failure
// detectors, crashes and the fault timeline), the stream of events both
// runtimes emit (Event, Sink), and the record they count into (Record).
//
// The simulator (nodes/sim) and the live harness (nodes/live) take the same
// Config and return the same Record; the checker (nodes/check) and the
// trace (Trace) listen to the same events; workloads turns a Record and a
// verdict into a row. A runtime builds only the events some sink wants
// (Selective), so the simulator's hot path pays nothing for a nil sink.
package trial
