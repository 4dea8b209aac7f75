// Package hunt searches the space of fault schedules for a trial that
// violates a property, on the simulator (`electbench hunt`,
// docs/HUNT.md). It owns the space drawn around a base scenario (the
// algorithms, cluster sizes, latency models, initiators and fault kinds a
// candidate may take), the generator that draws one candidate — a whole
// single-trial scenario, its faults chosen by swarm testing (Groce et al.,
// ISSTA 2012) — the properties a candidate is judged by, the coverage of
// abstract protocol states that guides the search (a corpus of the
// candidates that reached new states or raised a column property's
// score, mutated beside fresh draws by a power schedule that favours rare
// states, often keeping the schedule up to an entry's last new state),
// and the counterexample it writes.
//
// Every candidate is built as YAML and read by chaos.Parse, then run
// through workloads.FromScenario and Trial.Watch, exactly as `electbench
// run` runs the file: the counterexample written (chaos.Format) is what
// ran, and its expect: block is the property, so that running it exits 1
// while the violation still occurs. Searches are deterministic: the same
// seed finds the same counterexample at any parallelism (batches of a
// fixed size, drawn from the corpus as of the batch's start, folded in
// candidate order).
//
// It sits between workloads (what a run does) and cmd (the command line):
// it reads scenarios, runs trials and judges them, and prints nothing.
package hunt
