// Package ring implements the ring family of ALGORITHMS.md: `ring`,
// `chang-roberts`, `ring-initiator` and `lcr` on a unidirectional ring, and
// `hs` (Hirschberg–Sinclair) on a bidirectional one. Each algorithm is one
// file that registers itself with nodes.Register from init, so a runtime
// finds it by name after a blank import of this package.
//
// The lecture's other rings live here too, outside the asynchronous model
// (nodes.Algorithm.Model) and so outside "all": `time-slice` and
// `variable-speeds` run in synchronous rounds of T and elect the smallest
// id, keeping a clock of ticks of at most N rounds (rounds.go, their
// figures in roundstheory.go); `itai-rodeh` elects on an anonymous ring
// by drawing ids from Env.Rand, its IR_ROUND message carrying the drawn
// id in Rank, the round in A and hop·2 + tie bit in B. None of them takes
// part in ring repair.
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
//	PROBE     Rank = j, A = run·64 + phase k, B = hop count d   (hs)
//	REPLY     Rank = j, A = run·64 + phase k                     (hs)
//
// The run number is 0 unless ring repair has restarted a run (below), so
// in a fault-free run it costs no byte on the wire (zero fields are not
// encoded), and hs's A is the phase alone, as ALGORITHMS.md has it. hs
// packs the run above the phase (A = run<<6 | k) rather than in a field of
// its own because Message has none that hs leaves free (Aux is a rank):
// six bits hold any phase, since a phase-k probe with 2^k ≥ N comes back
// to its sender (phases stay below 32), and hs caps the phase at 63
// against forged or duplicated replies. Run numbers then go up to
// MaxInt64>>6, where a restart reopens the same run rather than wrap; a
// negative A is older than every run and dropped, as is an hs ELECTED
// whose run is above that limit.
//
// Every process calls Env.Decide when it learns the leader: the leader when
// its own ELECTION (or hs probe) comes back, the others when ELECTED passes.
// The leader does not decide again when its ELECTED returns. After a crash
// a process may decide again, when a restarted run elects.
//
// # Ring repair
//
// ALGORITHMS.md, "Ring repair", gives two rules, for every ring algorithm:
//
//  1. A process whose successor is suspected sends to the next unsuspected
//     process instead, found with Env.After: the ring closes over the gap.
//     An hs process does the same on its other side: a suspected
//     predecessor is replaced by the nearest unsuspected process before
//     it. Env has no step against the ring's direction, so hs walks
//     forward with Env.After all the way round from its successor and
//     keeps the last unsuspected process before itself: N steps, only when
//     a suspicion hits the predecessor route (finding a suspected process's
//     rank may take N steps in every algorithm). If every other process is
//     suspected, both routes are the process itself, and its own probe
//     comes straight back: alone, it is the leader.
//  2. A process that suspects the process whose rank an ELECTION carries
//     does not forward it but starts a new run. In hs this applies to a
//     PROBE(j) with j suspected and above the process (below it, j is
//     swallowed anyway) and to a REPLY(j) with j suspected.
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
// This package therefore extends the specification with rules of its own
// (3-6 for every algorithm, 7 for hs); they are not ALGORITHMS.md's:
//
//  3. Runs are numbered, in Message.A of ELECTION and ELECTED (and in hs of
//     PROBE and REPLY, above the phase). A process that starts a new run (rules
//     2, 4, 5 and 7) numbers it one above the highest it has seen. A message of
//     a higher run than any seen starts that run afresh at its receiver:
//     chang-roberts and ring-initiator clear the participation flag
//     (ring-initiator takes the message's initiator as the run's), lcr behaves
//     as at Start — in place of the first smaller id it sends its own, once per
//     run (forwarding a higher id also counts as taking part) — and so does hs:
//     phase 0, no replies, not leader, its own phase-0 probes both ways, then
//     the message under the ordinary rules (not for an ELECTED: that run has
//     elected already, and the probes would only be swallowed). A message of a
//     lower run is dropped. Within one run the algorithm's own rules apply
//     unchanged; concurrent restarts from the same run pick the same number and
//     meet as several initiators do.
//  4. A process whose route changes by rule 1 (either of hs's two) starts a new
//     run, carrying itself: whatever it sent to the process now cut out may
//     have been lost with it, and a crashed process may have held the run's
//     only message. A new run rather than a resend of the last message: a
//     chang-roberts process may have forwarded several ELECTIONs into the gap,
//     and the last is not always the one that mattered (forwarded 9, then 7:
//     resending 7 alone leaves 9, participating, to swallow it); a new run
//     needs no memory of what was sent, and its number retires whatever of the
//     old one is still in flight.
//  5. ELECTED(l) with l suspected is neither recorded nor forwarded; the
//     process starts a new run (rule 2 for the other kind).
//  6. Initiate does nothing while a run this process started by a restart
//     is unfinished here (its ELECTED has not passed): it has already
//     initiated it, typically when an initiator suspects a crash at time 0.
//     (lcr and hs start every process in Start and ignore Initiate.)
//  7. hs only: a PROBE or REPLY from a process this one suspects is not
//     handled; unless it belongs to an older run (dropped), the process
//     starts a new run. These two kinds find their way by the link they
//     came over — from the successor route on to the predecessor route,
//     from anywhere else on to the successor route — and a suspected
//     sender is on neither route any more, so the side it came from is
//     unknown. Sent on to the successor, a message that came from the
//     successor side would turn back toward the processes it has passed,
//     and a probe could come home to its sender without passing the rest
//     of the ring: a lower process elected while a higher one lives
//     (TestHSRepairFromSuspectedSender). It takes a sender that saw a run
//     before this process did and whose crash is detected here before its
//     last messages arrive: a link slower than the detector.
//
// An hs message from a process that is on neither route and not suspected
// comes over a gap of crashed processes that the sender suspects and this
// process does not yet. From the predecessor side, going on to the
// successor is right; from the successor side, the successor route is one
// of those crashed processes, the message is lost, and the suspicion to
// come changes the route and starts a new run (rule 4). With a detector
// that suspects only crashed processes, an hs message never turns back.
//
// Why this is live under a perfect detector, or any detector that
// eventually suspects every crashed process and never a live one, with
// finitely many crashes: restarts are finitely many (rule 4 fires once per
// route change; rules 2 and 5 each consume a message carrying a crashed
// process, and no new one is made once that process has crashed; rule 7
// consumes a message that a crashed process sent), so a highest run E held
// by a live process exists. A message of run E lost to
// a crash was sent by a process that had seen E; the last live process on
// its way later suspects the crashed one after it, changes route and starts
// run E+1 by rule 4 — a contradiction. So the messages of run E that reach
// live processes are never lost, messages carrying crashed processes are
// stopped by rules 2 and 5 (which would again start E+1), older runs are
// dropped, and run E is a fault-free run of the algorithm with several
// initiators over the repaired ring: it elects the highest live process and
// its ELECTED passes every live process.
//
// In hs messages travel both ways, and the argument holds on each side. A
// message of run E lost to a crash, going either way, was sent by a
// process that had seen E to a crashed process it did not suspect yet:
// its route on that side, or a process beyond that route with only crashed
// processes in between (a REPLY goes back to where its probe came from, a
// message from beyond the successor goes on into the successor route,
// above). So the sender's route on that side is a crashed process, and the
// suspicion to come changes it and starts E+1. A message of run E that a
// crashed process sent and a live one receives would also start E+1: by
// rule 7 if the receiver already suspects the sender, and otherwise when
// it does, since the sender is then the receiver's route on that side or
// lies beyond it across crashed processes. A process's two routes do not
// change once it has seen E (a change would start E+1), so in run E they
// are final, and final routes are the nearest live processes each way, as
// the detector eventually makes them: in run E x sends to y as its
// successor exactly when y sends to x as its predecessor, and the live
// processes form one bidirectional ring. Each joins E on its first message
// of E (rule 3) and sends probes to both its neighbours, so all of them
// join; hs elects the highest process when processes wake at different
// times, each by its first message, so run E elects the highest live
// process, and its ELECTED goes round the successor routes past every live
// process.
//
// TestRepairRestoresLiveness checks
// this in the simulator for crash points across the whole election, for
// every algorithm, TestRepairSeveralCrashes for several crashes, and
// TestRepairUnevenDetection for detection delays that differ by observer.
//
// The cost is a whole new run per crash, even for a crash after the
// election ended (the same leader is then elected again), and in `ring`,
// whose runs never swallow each other, every concurrent restart goes round.
// In hs a new run is a whole new election, O(N log N) messages, since
// every process probes again from phase 0.
//
// None of this fires without a suspicion: every message carries run 0,
// every figure of ALGORITHMS.md is unchanged, and the run number, the
// suspicions and the rest of the repair state live behind one pointer per
// process that stays nil in fault-free runs. Suspicions are permanent: the
// contract has no way to withdraw one. With an inaccurate detector repair
// still breaks safety (the N80 example: a live process cut out of the ring)
// and can livelock (a process that wrongly suspects a live higher process
// restarts every time that process's ELECTION comes round); with a missed
// crash it still never terminates — as ALGORITHMS.md says it must.
//
// Theory gives the figures of ALGORITHMS.md where a closed form exists; see
// theory.go for which configurations those are.
package ring
