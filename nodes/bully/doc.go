// Package bully implements the bully family of ALGORITHMS.md on a complete
// topology, where every process knows every other and its rank: `bully`
// (Garcia-Molina 1982 as taught, variant classic, and variant two-phase with
// the paper's Normal, Election and Waiting states) and `multicast` (the
// election without the bully's shortcut, variants agree and no-agree). Each
// algorithm registers itself with nodes.Register from init, so a runtime
// finds it by name after a blank import of this package.
//
// Env.Peers lists every process, this one included, in ascending rank order,
// so "every process of higher id" is the suffix after this process. A
// process keeps that shared slice, its own index in it, the coordinator it
// believes in (at first the highest process) and a bitset of the processes
// its failure detector has suspected, allocated on the first suspicion.
// Suspicions are permanent: the contract cannot withdraw one.
//
// Messages use these fields of nodes.Message (the rest stay zero):
//
//	ELECTION     bully: none (only lower processes send it); multicast: Rank = j, the candidate
//	OK           none
//	COORDINATOR  Rank = l, the coordinator
//	HALT         Rank = w, the winner that halts the receiver (two-phase)
//	ACK          Rank = the sender, so the winner counts it without a scan (two-phase)
//	AGREE        none (multicast, variant agree)
//	DISAGREE     none (multicast)
//
// Timers: T1 and T2 (bully), ACK_WAIT (the two-phase winner waiting for
// ACKs), ELECTION_WAIT (multicast). Their lengths are the parameters t1, t2,
// ack-wait and timeout; a value below the round trip is accepted, so that
// the checker can show what it breaks. The defaults (2T) are exactly the
// reference model's round trip: under jittered latency the worst round trip
// is longer, and a run needs longer timers to elect the right process.
//
// A process calls Env.Decide only when the protocol teaches it the leader:
// on an accepted COORDINATOR, or when it announces itself. Nobody decides at
// Start, although everyone begins believing in the highest process.
//
// Where ALGORITHMS.md is silent:
//
//   - A process starts an election when the workload tells it to or when it
//     suspects the coordinator it believes in (multicast too), unless one is
//     running. An election runs at a process from its start until it accepts
//     a COORDINATOR or announces: a bully process that got an OK, a two-phase
//     process halted by a winner and a multicast process that gave up after
//     a DISAGREE are all still in it.
//   - bully: a workload request at the very instant the process started an
//     election (the detector's verdict comes first at time 0 in a
//     crash-at-start run) is that election, even if it was won on the spot;
//     otherwise the second-highest would announce twice.
//   - COORDINATOR only travels to lower processes, so a bully process never
//     hears of a coordinator below itself, and the Wikipedia rule of bullying
//     a lower announcer has nothing to act on: COORDINATOR(l) is recorded.
//   - The highest live process answers every ELECTION that reaches it when no
//     election runs there by starting one, which it wins at once: it
//     announces again. That is the rule as written, and it is what lets a
//     process that started late learn the coordinator; without a crash it
//     makes the lowest initiator's run cost (N−1)² COORDINATOR (theory.go).
//   - two-phase follows the paper where ALGORITHMS.md stops: a process accepts
//     COORDINATOR(l) only while Waiting and halted by l; a winner halted by a
//     higher winner yields; T2 also guards Waiting; the winner waits for an
//     ACK from every lower process it does not suspect, for at most ack-wait,
//     and sends COORDINATOR to every lower process, as classic does, so that
//     the variant costs exactly the HALTs and ACKs more.
//   - multicast's "AGREE from all" means from every other process, suspected
//     or not: a suspicion may be wrong, and the timer covers a real crash.
//
// Theory gives the figures of ALGORITHMS.md for one initiator with nobody or
// only the highest crashed; see theory.go.
package bully
