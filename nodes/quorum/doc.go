// Package quorum implements the quorum elections of ALGORITHMS.md, the
// industry systems: `chubby` (a master lease won and renewed by majority
// vote), `zookeeper` (sequence ids, each process watching only the next
// higher, NEW_LEADER/ACK/COMMIT by majority) and `raft` (terms, one vote per
// term, randomized election timeouts, heartbeats; no log). Each registers
// itself with nodes.Register from init, on the complete topology: Env.Peers
// lists every process, this one included, in ascending rank order, and a
// process is numbered by its index in that list in every tally. Majorities
// are counted by the pure helper package quorum/tally.
//
// All three run forever — heartbeats, lease renewals, watch pings — so a run
// ends at its deadline, never by coming to rest, and every process takes
// part from Start (Algorithm.StartsAll). Each declares a nodes.Quorum, from
// which the runtime reads terms, split votes, "at most one leader per term"
// and, for chubby, the lease intervals off the messages it carries, without
// trusting what the algorithm says about itself. The periodic keep-alive
// kinds are nodes.MaintenanceClass: counted by kind, but not election
// messages (ALGORITHMS.md: heartbeats are not election messages).
//
// A process calls Env.Decide when it learns a new leader (or master): the
// winner at once, the others on the message that announces it. A belief is
// never withdrawn, and hearing the same leader again decides nothing.
//
// Messages use these fields of nodes.Message (the rest stay zero). Every
// kind but the watch pings carries its sender's rank, as Raft's RequestVote
// carries candidateId, so that a receiver finds the sender by binary search
// and drops a message whose rank does not match the link it came on; the
// pings carry the commit their sender follows instead.
//
//	raft       REQUEST_VOTE   Rank = candidate, A = term, B = its last-log index (0 without logs)
//	           VOTE           Rank = voter, A = term, B = 1 granted, 0 refused
//	           HEARTBEAT      Rank = leader, A = term                         (maintenance)
//	           HEARTBEAT_ACK  Rank = follower, A = its term                   (maintenance)
//	chubby     VOTE_REQUEST   Rank = candidate, A = epoch
//	           VOTE           Rank = voter, A = epoch, B = 1 (a refusal is silence)
//	           LEASE          Rank = master, A = epoch: lease won or renewed  (maintenance)
//	           RENEW          Rank = master, A = epoch                        (maintenance)
//	           RENEW_ACK      Rank = replica, A = epoch                       (maintenance)
//	zookeeper  NEW_LEADER     Rank = proposer, A = epoch
//	           ACK            Rank = acker, A = epoch, B = 1
//	           COMMIT         Rank = leader, A = epoch
//	           WATCH          Rank = leader followed, A = its epoch (0: none) (maintenance)
//	           WATCH_ACK      Rank = leader followed, A = its epoch (0: none) (maintenance)
//
// Timers: ELECTION_TIMEOUT and HEARTBEAT_TICK (raft); CANDIDACY, VOTE_ROUND,
// RENEW and LEASE_END (chubby); WATCH_TICK, MONITOR and PROPOSE_WAIT
// (zookeeper). Every duration parameter takes multiples of T ("20T") or
// seconds ("150ms").
//
// Where ALGORITHMS.md is silent:
//
//   - None of the three keeps stable storage (the contract gives an
//     algorithm no file), and the simulator restarts a process as a fresh
//     machine. Raft's safety needs its term and vote to survive a crash, so
//     after such a restart it can elect two leaders in a term; the checker
//     reports it, and a leader that hears another of its term yields.
//     Zookeeper's one ACK per epoch has the same need. Chubby forgets only
//     promises that time bounds: a process started after the run began
//     votes for nobody, itself included, for L + margin, which keeps every
//     promise it may have forgotten.
//   - raft ignores the harness's failure detector: its election timeout is
//     its detector. Heartbeats are answered with HEARTBEAT_ACK carrying the
//     follower's term, as AppendEntries replies are, so that a deposed
//     leader returning from a partition learns the newer term and steps
//     down. The defaults 20T–40T are Raft's 150–300 ms at T = 7.5 ms (a
//     broadcast time of 15 ms, as in the paper's measurements).
//   - chubby's lease: a round (a candidacy or a renewal) lasts at most the
//     renewal margin; a voter promises its vote to the candidate for
//     L + margin from the moment it votes; the winner holds the lease for L
//     from the moment it has a majority and says so with LEASE. chubby.go
//     shows why no two leases can then overlap in the harness clock. Before
//     handling any event a process looks at its clock: a master past its
//     lease, or a candidate past its round, is a replica again — one that
//     slept through the end wakes to its missed messages before its missed
//     timers, and must not count a late vote or act as master. A replica
//     that refuses stays silent. A failed candidate waits again before the
//     next try (its voters stay promised to it, so it may still win), and
//     its promise to itself ends with its candidacy or lease, or two failed
//     candidates would never vote for each other.
//   - zookeeper's sequence number is the rank's order (join order), and
//     the highest process proposes itself at Start. A process monitors the
//     next process up not known to be down by its own pings, the highest
//     wrapping round to the lowest (so the watches form a ring, and a
//     leader below the top is watched too); the harness detector's verdict
//     about that one process counts as the watch firing, verdicts about
//     others are remembered only. Suspicions are doubted: a suspected
//     process nearer than the one watched is probed at every tick and
//     watched again once it answers or sends anything, and when every other
//     process seems down the monitor starts round the ring again. The pings
//     carry the commit each side follows, so a process that missed a COMMIT
//     learns it when a partition heals. A proposal that gets no majority
//     within a random wait in [propose-wait, 2·propose-wait] is made again
//     in a new epoch (a fixed wait would let proposers who failed together
//     split every epoch in lockstep), and a proposer that ACKs a higher
//     epoch defers to it but keeps its timer in case it never commits.
package quorum
