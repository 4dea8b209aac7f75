// Package nodetest is the in-memory network the algorithm packages' unit
// tests run their machines on, and their golden message transcripts.
//
// A Net runs one registered algorithm on N processes through nodes.Env,
// with no dependency on the simulator: it imports only nodes, nodes/trial
// (the event vocabulary both runtimes share) and the standard library, so
// that a test pins an algorithm's rules without the runtime in between. It follows the reference model of ALGORITHMS.md:
// every message takes exactly T (Config.Latency may draw other delays),
// and at one instant actions scheduled with At come first, then deliveries
// in send order, then timer expirations in arming order. Processes are
// named by position 0..N−1, which is also their PeerID; the topology is
// the algorithm's (RingUni: Peers() = [successor]; RingBi: [successor,
// predecessor]; Complete: every process, itself included, by ascending
// rank).
//
// A test either hands one process one event and looks at exactly what it
// did —
//
//	n := nodetest.Build(t, "bully", nil, 10, 20, 30)
//	n.Start()
//	n.Initiate(0)
//	n.ExpectSent(nodetest.Envelope{From: 0, To: 1, Msg: election}, ...)
//	n.ExpectArmed(0, timerT1, 2*nodetest.DefaultT)
//
// — or runs the network (Step, RunUntil, Run, Stabilize) under faults
// (Crash, Restart, Pause, Resume, Cut, Block, Heal, Drop, and At to
// schedule any of them) and inspects the outcome: decisions per process,
// armed timers, messages sent by kind, timer expirations, the time of the
// last election message, and every event (Events, Observe), as the
// trial.Events the runtimes emit.
//
// Every random draw comes from a source seeded by Config.Seed: one per
// process for Env.Rand (trial.ProcessRand, as in the runtimes), one for
// Config.Latency. Nothing reads a clock.
//
// Transcript prints the history as a trial.Transcript, one event a line,
//
//	t=0T send 0->1 ELECTION(r=1)
//	t=1T recv 0->1 ELECTION(r=1)
//	t=2T timer p=1 T1
//	t=3T decide p=2 leader=5
//
// and Golden compares it with testdata/<name>.txt. The simulator writes
// the same transcript for the same run under the reference model
// (nodes/sim's TestGoldenTranscriptsAreSimulated checks every file, but
// those of tests that drive a process by hand). Importing nodetest
// declares the -rewrite test flag, which writes the files instead:
//
//	go test ./nodes/ring -run Golden -rewrite
//
// The flag goes after the packages (go test does not know it takes no
// value), and only packages whose tests import nodetest accept it. Review
// a rewritten transcript before committing it.
package nodetest
