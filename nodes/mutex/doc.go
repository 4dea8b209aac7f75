// Package mutex is the distributed mutual-exclusion family: the lecture's
// other half beside election, measured the same way (ALGORITHMS.md,
// "Mutual exclusion"). Each algorithm is one short file that registers
// itself: central (a coordinator grants one entry at a time), token-ring
// (a token circulates on the ring), ricart-agrawala (multicast with
// Lamport timestamps) and maekawa (voting sets of about 2√N from a cyclic
// grid, with the inquire/relinquish fix as a variant). token-ring has a
// variant that regenerates a token lost with a crashed holder.
//
// Every algorithm is a nodes.Machine like the election algorithms and runs
// unchanged in the simulator and in live node processes. What a process
// does is driven by the request workload (workload.go): the run's
// initiators request the critical section `requests` times, hold it for
// `hold` and wait `think` between requests. A process shows where it stands
// through nodes.Phased (Released, Wanted, Held); the runtimes report every
// phase, and the checker (nodes/check, mutex.go) judges safety, liveness
// and ordering and measures delays from those phases alone, never from the
// algorithm's own claims.
package mutex
