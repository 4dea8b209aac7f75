// Package check is the safety and liveness checker of a trial. It is fed the
// trial's events (trial.Event: decisions, crashes, restarts, phases and, for
// quorum algorithms, every send and delivery; for bully and multicast the
// sends that count elections) by whichever runtime ran it,
// and judges the trial at its end (Finish): correct, live, the leader, and
// every violation with when and who. It reads messages as they cross the
// runtime, never an algorithm's own claims, and wraps no machine.
//
// Algorithm tests use it directly; workloads turns its Verdict into a row.
package check
