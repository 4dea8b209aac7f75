// Package ring implements the ring family of ALGORITHMS.md: `ring`,
// `chang-roberts`, `ring-initiator` and `lcr` on a unidirectional ring, and
// `hs` (Hirschberg–Sinclair) on a bidirectional one. Each algorithm is one
// file that registers itself with nodes.Register from init, so a runtime
// finds it by name after a blank import of this package.
//
// Every process is a small struct (a few words: the successor's handle, a
// pointer to repair state, a flag, at most one remembered rank), because
// the simulator runs rings of a million processes; receiving a message is a
// few comparisons and at most one Send, with no allocation.
//
// Messages use these fields of nodes.Message (the rest stay zero):
//
//	ELECTION  Rank = r, the candidate; Aux = the run's initiator (ring-initiator only); A = run number
//	ELECTED   Rank = l, the leader;    Aux = the run's initiator (ring-initiator only); A = run number
//	PROBE     Rank = j, A = phase k, B = hop count d   (hs)
//	REPLY     Rank = j, A = phase k                     (hs)
//
// The run number is 0 unless ring repair has restarted a run (below), so
// in a fault-free run it costs no byte on the wire (zero fields are not
// encoded).
//
// Every process calls Env.Decide when it learns the leader: the leader when
// its own ELECTION (or hs probe) comes back, the others when ELECTED passes.
// The leader does not decide again when its ELECTED returns. After a crash
// a process may decide again, when a restarted run elects.
//
// # Ring repair
//
// ALGORITHMS.md, "Ring repair", gives two rules, implemented for the
// unidirectional algorithms:
//
//  1. A process whose successor is suspected sends to the next unsuspected
//     process instead, found with Env.After: the ring closes over the gap.
//  2. A process that suspects the process whose rank an ELECTION carries
//     does not forward it but starts a new run.
//
// It then says: "With a perfect detector this restores liveness after
// crashes." Taken literally, it does not. A new run started by rule 2 is
// swallowed by chang-roberts and ring-initiator processes still flagged as
// participating in the dead run, and by lcr processes, which swallow every
// smaller id and never send their own again. A crash loses whatever was in
// flight to it, and everything its predecessor sends it until the detector
// speaks (D after the crash); nothing resends it, so a run whose only
// message was lost never ends, in `ring` too. And an ELECTED whose leader
// has crashed goes round the repaired ring for ever, since no process is
// that leader to stop it.
//
// This package therefore extends the specification with four rules of its
// own; they are not ALGORITHMS.md's:
//
//  3. Runs are numbered, in Message.A of ELECTION and ELECTED. A process
//     that starts a new run (rules 2, 4 and 5) numbers it one above the
//     highest it has seen. A message of a higher run than any seen starts
//     that run afresh at its receiver: chang-roberts and ring-initiator
//     clear the participation flag (ring-initiator takes the message's
//     initiator as the run's), and lcr behaves as at Start — in place of
//     the first smaller id it sends its own, once per run (forwarding a
//     higher id also counts as taking part). A message of a lower run is
//     dropped. Within one run the algorithm's own rules apply unchanged;
//     concurrent restarts from the same run pick the same number and meet
//     as several initiators do.
//  4. A process whose route changes by rule 1 starts a new run, carrying
//     itself: whatever it sent to the process now cut out may have been
//     lost with it, and a crashed process may have held the run's only
//     message. A new run rather than a resend of the last message: a
//     chang-roberts process may have forwarded several ELECTIONs into the
//     gap, and the last is not always the one that mattered (forwarded 9,
//     then 7: resending 7 alone leaves 9, participating, to swallow it); a
//     new run needs no memory of what was sent, and its number retires
//     whatever of the old one is still in flight.
//  5. ELECTED(l) with l suspected is neither recorded nor forwarded; the
//     process starts a new run (rule 2 for the other kind).
//  6. Initiate does nothing while a run this process started by a restart
//     is unfinished here (its ELECTED has not passed): it has already
//     initiated it, typically when an initiator suspects a crash at time 0.
//
// Why this is live under a perfect detector, or any detector that
// eventually suspects every crashed process and never a live one, with
// finitely many crashes: restarts are finitely many (rule 4 fires once per
// route change; rules 2 and 5 each consume a message carrying a crashed
// process, and no new one is made once that process has crashed), so a
// highest run E held by a live process exists. A message of run E lost to
// a crash was sent by a process that had seen E; the last live process on
// its way later suspects the crashed one after it, changes route and starts
// run E+1 by rule 4 — a contradiction. So the messages of run E that reach
// live processes are never lost, messages carrying crashed processes are
// stopped by rules 2 and 5 (which would again start E+1), older runs are
// dropped, and run E is a fault-free run of the algorithm with several
// initiators over the repaired ring: it elects the highest live process and
// its ELECTED passes every live process. TestRepairRestoresLiveness checks
// this in the simulator for crash points across the whole election,
// TestRepairSeveralCrashes for several crashes, and
// TestRepairUnevenDetection for detection delays that differ by observer.
//
// The cost is a whole new run per crash, even for a crash after the
// election ended (the same leader is then elected again), and in `ring`,
// whose runs never swallow each other, every concurrent restart goes round.
//
// None of this fires without a suspicion: every message carries run 0,
// every figure of ALGORITHMS.md is unchanged, and the run number, the
// suspicions and the rest of the repair state live behind one pointer per
// process that stays nil in fault-free runs. Suspicions are permanent: the
// contract has no way to withdraw one. With an inaccurate detector repair
// still breaks safety (the N80 example: a live process cut out of the ring)
// and can livelock (a process that wrongly suspects a live higher process
// restarts every time that process's ELECTION comes round); with a missed
// crash it still never terminates — as ALGORITHMS.md says it must. hs
// ignores suspicions, because Env offers no way to walk the ring against
// the direction of travel to replace a suspected predecessor.
//
// Theory gives the figures of ALGORITHMS.md where a closed form exists; see
// theory.go for which configurations those are.
package ring
