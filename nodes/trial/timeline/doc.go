// Package timeline is the one fault engine: it runs a trial's fault
// timeline (trial.Fault, as chaos compiles scenario faults)
// on either runtime, through the runtime's trial.Injector. It lives beside
// the interface it drives: both runtimes (nodes/sim, nodes/live/harness)
// call it, and chaos only compiles scenario faults into its input.
package timeline
