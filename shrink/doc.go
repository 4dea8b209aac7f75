// Package shrink minimises a failing scenario and replays it: the room
// between workloads (what a run does) and the command line.
//
// A failing scenario is any scenario file one of whose trials fails an
// expectation (a counterexample from `electbench hunt`, a built-in
// scenario, a hand-written file). Pick chooses its first failing trial and
// writes it as a one-trial scenario; Shrink then applies passes that each
// make the scenario smaller or simpler (fewer faults, shorter faults,
// fewer processes, constant latency, a smaller seed, ...) and keeps a
// change only while the same violation still occurs (Violation: the same
// property failed, for safety the same kind of violation, and never a
// trial taken outside its algorithm's model when the original was not).
// Once they keep nothing, a last pass shrinks the trial's random draws as
// a choice sequence (trial.Draws, recorded and replaced toward
// trial.SimplestDraw), which the scenario then carries in draws:.
// Every candidate is a scenario file written by chaos.Format and read back
// by chaos.Parse, so what the shrinker ran is what it writes. Run runs a
// one-trial scenario with its trace, whose sha256 is the file's
// trace-hash: replay runs it again and compares (docs/SHRINK.md). Story
// reads the trace for the fault story the report page tells.
package shrink
