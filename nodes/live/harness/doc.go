// Package harness is the live runtime's driver: it runs a trial
// (trial.Config) on real node processes — the electbench binary
// re-executed as `electbench node` (nodes/live) — linked through Toxiproxy,
// and returns the same trial.Record the simulator does, with the same
// events emitted to Config.Events (the checker, a trace).
//
// One Runtime serves many trials through one Toxiproxy, embedded or
// external (cluster.go) — or, for a cluster whose proxies one process's
// file descriptors cannot hold, the embedded one and server processes,
// each link's proxy on its receiving node's server (servers.go); with
// hosts made of network namespaces (--netns), a server in each host,
// holding the proxies into its nodes — and
// keeps a cluster's proxies, and a listening socket per node slot, for
// every trial of its size, reset and checked between trials (kept.go).
//
// A trial is a coordinator (run.go's liveTrial) over parts that own their
// own state, each a type in a file of its own, below it: the processes
// and every position's state (procs.go: spawn, signals, respawn, wait),
// the links (links.go: Toxiproxy proxies, toxics and cuts), the faults
// (faults.go: the trial.Injector), the event log and the counts it makes
// (record.go), the clock and its scheduled actions (schedule.go) and the
// settling rules and budget (settle.go). The parts call nothing above
// them but through the narrow interface they declare (faultHost), as
// parts_test.go checks. The coordinator spawns a process per slot on
// that slot's socket and has each mint its identity, hands the
// identities out to positions in the order of Config.Ranks, gives every
// directed link the topology uses the proxy between its ends' slots, with
// its latency, starts the run on the host's shared monotonic clock and
// drives it — commands out, step lines in — until it settles, its
// deadline passes or its context ends. The trial's crashes and faults
// run on the one fault engine, nodes/trial/timeline, as in the simulator:
// the harness is its trial.Injector (faults.go), acting through signals, the
// control channel and Toxiproxy (the client in toxi/, its only user).
// Whatever happens, every process and file a trial acquired is released
// before Run returns; the kept proxies and sockets, at the latest at Close
// (at once after a trial that was interrupted or lost Toxiproxy, or
// whose cluster could not be reset).
//
// A set-up takes seconds for a large cluster (a process per node, a
// handshake at each end of every link), so Options.Progress hears it as it
// goes, stage by stage (progress.go: starting, proxying, linking, running).
//
// The nodes report each event their machine handled as a step line whose
// kinds and timers are numbers of the shared registry (nodes/live's
// control.go); the harness decodes them into trial events as they come,
// and emits them in time order as soon as no event still to come can be
// earlier (the nodes' clocks, asked by a sync command once a few are
// held), counting them into the record through its methods (record.go),
// so a live count means what a simulated one does and a trace streams.
//
// The harness imports no algorithm and not workloads: workloads runs live
// trials through its Runtime interface, which Recorder implements.
package harness
