// Package sim is the deterministic discrete-event runtime: it runs one trial
// of a registered algorithm on a virtual clock.
//
// Events (message deliveries, timer expirations, initiations) are ordered by
// virtual time, then by class — control before deliveries before timers, so a
// timer set to exactly a round trip does not fire ahead of the answer arriving
// at that instant (ALGORITHMS.md, "The reference model") — then by the order
// in which they were scheduled. Every random draw comes from sources seeded by
// Config.Seed, so the same configuration and seed give the same run, event for
// event.
//
// Links carry messages with a latency model (constant, uniform, normal,
// exponential) and are FIFO: a message never overtakes an earlier one on the
// same directed link. Under constant latency delivery order equals send order,
// so deliveries go through a plain FIFO queue instead of the heap; that is
// what lets a million-process ring elect in a fraction of a second. Under a
// random latency every event goes through a radix heap (queue.go) — below
// 64 processes through a sorted array (a small trial's dozen pending events
// cost a few moves there), which hands over to a radix heap past 64 —
// traded for a timing wheel (wheel.go) once a quarter million events are pending
// (bully on thousands of processes holds tens of millions), whose
// entries carry the receiving process so that the process and the payload
// are fetched together; a pending message's ranks are handles into the
// trial's rank table (packed.go); with a million events pending the cost
// per event is cache misses, so each process keeps its machine, rank and link state in
// one struct (proc), and a refill of the radix heap loads the state of the
// next events ahead of them (sim.warm), overlapping their misses. Neither
// changes the order of events: only where their state lives.
//
// Faults (effects.go) are events like any other: a Fault starts at the run's
// start, at a virtual time or at a trigger (the first initiation, the first
// decision, the K-th election message) and heals after a duration or at
// another trigger. Its targets are resolved when it starts, against a View
// of the world then (roles such as the current leader move). Process effects
// crash, restart, pause or falsely suspect processes; link effects cut,
// delay, throttle, slice, lose, duplicate or reorder the messages of a set
// of directed links. Every random draw of a fault comes from its own stream
// of the trial's seed, and a run without faults never enters this code: its
// events and bytes are those of a simulator without it.
//
// The runtime counts: messages and encoded bytes by kind as they are sent,
// timer expirations by name, the time of the last election message delivered
// and every decision (reported to an Observer). Algorithms count nothing.
package sim
