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
//   - the node (node.go): one goroutine owns the nodes.Machine; frames from
//     the sockets, timer expirations, heartbeat ticks and harness commands are
//     funnelled into it, so the machine is never called concurrently, exactly
//     as in the simulator. Timers are real, the random source is seeded like
//     the simulator's, and every frame sent and received is counted by kind;
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
