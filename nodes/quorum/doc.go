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
// and drops a message whose rank does not match the link it came on.
//
//	raft       REQUEST_VOTE   Rank = candidate, A = term
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
//	           WATCH          none                                            (maintenance)
//	           WATCH_ACK      none                                            (maintenance)
//
// Timers: ELECTION_TIMEOUT and HEARTBEAT_TICK (raft); CANDIDACY, VOTE_ROUND,
// RENEW and LEASE_END (chubby); WATCH_TICK, MONITOR and PROPOSE_WAIT
// (zookeeper). Every duration parameter takes multiples of T ("20T") or
// seconds ("150ms").
//
// Where ALGORITHMS.md is silent:
//
//   - raft ignores the harness's failure detector: its election timeout is
//     its detector. Heartbeats are answered with HEARTBEAT_ACK carrying the
//     follower's term, as AppendEntries replies are, so that a deposed
//     leader returning from a partition learns the newer term and steps
//     down. The defaults 20T–40T are Raft's 150–300 ms at T = 7.5 ms (a
//     broadcast time of 15 ms, as in the paper's measurements).
//   - chubby's lease: a round (a candidacy or a renewal) lasts at most the
//     renewal margin; a voter promises its vote to the winner for L + margin
//     from the moment it votes; the winner holds the lease for L from the
//     moment it has a majority and says so with LEASE. chubby.go shows why
//     no two leases can then overlap in the harness clock. A master checks
//     its lease before handling any event, so one that slept through the
//     end of its lease is a replica when it wakes. A replica that refuses
//     stays silent, and a failed candidate waits again before the next try
//     (its voters stay promised to it, so it may still win).
//   - zookeeper's sequence number is the rank's order (join order), and
//     the highest process proposes itself at Start. A process monitors its
//     next-higher process by its own pings; the harness detector's verdict
//     about that one process counts as the watch firing, verdicts about
//     others are remembered only. A proposal that gets no majority within
//     propose-wait is made again in a new epoch, and a proposer that ACKs a
//     higher epoch defers to it but keeps its timer in case it never
//     commits.
package quorum
