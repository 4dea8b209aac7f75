// Package live is the real runtime: one election process per operating-system
// process, talking TCP to its peers (through Toxiproxy, in a live run) and to
// the harness over a control channel of JSON lines on stdin and stdout.
//
// The pieces, from the wire up:
//
//   - the codec (codec.go): length-prefixed, versioned frames whose lengths
//     are bounded before anything is allocated; a MSG frame carries exactly
//     nodes.Message's canonical body, so the bytes a live run counts are the
//     simulator's EncodedSize;
//   - the handshake (handshake.go): each side of a new link shows its
//     proof-of-work identity and signs the other side's fresh challenge; a
//     forged, under-difficulty or copied identity is refused, logged and
//     counted, and its frames never reach the algorithm;
//   - the transport (transport.go): dial the links out, accept and serve
//     the links in, mark frames with the trial's epoch, know the trial's
//     roster. netTransport (nettransport.go) is the real one, and holds
//     every piece of state its connections' goroutines share, with the
//     locking written on the type; the tests run whole nodes over its
//     in-memory twin (memtransport_test.go);
//   - the node (node.go): a thin shell, one goroutine that owns the
//     nodes.Machine and obeys the harness's commands (configure, start,
//     reset, stop); frames from the transport, timer expirations,
//     heartbeat ticks and commands are funnelled into it, so the machine
//     is never called concurrently, exactly as in the simulator. Each
//     event is one step (step.go). The machine sees an env (env.go): its
//     rank and peers, the harness's clock, a random source seeded like the
//     simulator's, sends, real timers (timers.go) and stable storage
//     (stable.go); the heartbeat detector (detector.go) and the counts of
//     every message and frame sent and received by kind (counters.go) are
//     parts of their own, and its lines go out through reporter.go;
//   - the control channel (control.go): configure, start, initiate, suspect
//     and stop from the harness; hello (with the node's registry of kinds
//     and timers), linked, refused, one step line per event the machine
//     handled (with everything it sent, the timers left armed and any
//     decision, kinds and timers by number), maintenance counts and final
//     stats back.
//
// Times. The harness reads the host's monotonic clock (CLOCK_MONOTONIC on
// Linux, which every process on the host shares) when it starts a run and
// sends that reading; each node translates it once into its own Go clock, so
// Env.Now and every reported timestamp are on the harness's clock, without
// skew between processes. What a timestamp measures is when the node's
// goroutine began handling the event — after the kernel and the Go
// scheduler delivered it — so it lags the packet's arrival by the node's own
// dispatch delay (microseconds on an idle host), and a message's send, stamped
// with the step that sent it, always comes before its delivery.
//
// The harness side (spawning processes, Toxiproxy, faults, turning the
// nodes' step lines into trial events and a trial.Record) is package
// nodes/live/harness; `electbench node` runs NodeMain, and tests that
// re-execute themselves as nodes use nodes/live/livetest.
package live
