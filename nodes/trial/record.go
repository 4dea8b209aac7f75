package trial

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// Record is what a runtime counted in one trial. Both runtimes fill it
// through the same methods (CountSend, CountFire, Initiated, Delivered,
// Decided, Crashed, Suspected, ...), the simulator inline on its hot path,
// the live harness from the events its nodes report (Event), in time
// order, so a count means the same thing whichever runtime produced it.
type Record struct {
	N         int
	T         time.Duration // mean one-way latency
	Sent      []int64       // messages sent, by nodes.Kind
	SentBytes []int64       // encoded bytes sent, by nodes.Kind
	Fired     []int64       // timer expirations, by nodes.TimerID
	Messages  int64         // election-class messages sent
	Bytes     int64         // encoded bytes of all messages sent
	Timeouts  int64         // expirations of election-class timers (maintenance ticks only in Fired)
	// Unseen says no message or timer was visible (a server run from
	// outside, docs/SERVERS.md): the counts above are not measurements.
	Unseen    bool
	Decisions Decisions // by position
	// FirstInitiation is when the first process started or was told to
	// initiate; LastElection when the last election message was delivered
	// (negative if none was).
	FirstInitiation, LastElection time.Duration
	Events                        int64         // events processed
	Quiescent                     bool          // the run came to rest before the deadline
	Settled                       bool          // a quorum trial whose election was over for good ended early (Settling)
	End                           time.Duration // time of the last event processed
	Dropped                       int64         // messages lost because their receiver had crashed
	Crashes                       []CrashRecord // every crash, in order
	Alive                         []bool        // by position, at the end
	Detector                      Detector      // the detector that ran
	// Lost counts messages a fault lost (a cut link, loss, a data limit);
	// Duplicated the extra copies a fault delivered.
	Lost, Duplicated int64
	// Faults is the schedule the trial applied: every start and heal, with
	// its time and resolved targets.
	Faults []FaultEvent
	// AnonymousRefused (live) counts connections refused that proved no
	// identity, which are blamed on no process.
	AnonymousRefused int64
	// Disputes (live) are the refusals the processes reported of one
	// another, each once: a process's word, kept as evidence, never a
	// verdict (the runtime excludes a process only on its own check).
	Disputes []Dispute
	// ClockError (live, nodes on several hosts) bounds how far from the
	// truth any host's clock offset as estimated may be: a time on a
	// host's clock is moved onto the runtime's within it, so a figure
	// between two hosts' events is within twice it. Clocked says it was
	// estimated: without it the row's cell is NA, while 0 is a bound.
	ClockError time.Duration
	Clocked    bool
	// Delays are the one-way delays of the election messages (Delayed):
	// the T the network actually gave, against the configured T.
	Delays Delays
	// Bound is the delay bound D the machines were given (the latency
	// model's, plus the live runtime's allowance); 0 when none was set.
	// Overruns counts the election messages that took longer than Bound:
	// an algorithm that assumes bounded delay (nodes.Algorithm's
	// BoundedDelay) ran outside its model once there is one.
	Bound    time.Duration
	Overruns int64
}

// NewRecord prepares the record of a trial of n processes whose mean
// latency is t.
func NewRecord(n int, t time.Duration, det Detector) Record {
	var counts []int64
	return NewRecordIn(&counts, n, t, det)
}

// NewRecordIn is NewRecord counting in *buf, cleared, when it is long
// enough, and in a new array left in *buf otherwise: a runtime that runs
// trial after trial keeps one array for the counts (a slot for every kind
// and timer registered, a kilobyte) and gives each finished record counts
// of its own (OwnCounts).
func NewRecordIn(buf *[]int64, n int, t time.Duration, det Detector) Record {
	// The three counts share one array, each cut to its own capacity so
	// that growing one (growKinds, CountFire) copies it out rather than
	// overwrite the next: one allocation of a small trial, not three.
	k := nodes.NumKinds()
	need := 2*k + nodes.NumTimers()
	if len(*buf) < need {
		*buf = make([]int64, need)
	}
	counts := (*buf)[:need]
	clear(counts)
	return Record{
		N: n, T: t,
		Sent:         counts[:k:k],
		SentBytes:    counts[k : 2*k : 2*k],
		Fired:        counts[2*k:],
		Decisions:    NewDecisions(n),
		LastElection: -1, FirstInitiation: -1,
		Detector: det,
	}
}

// OwnCounts gives r counts of its own in place of those NewRecordIn's
// buffer holds, cut after the last kind and timer counted (the others are
// zero, which no reader tells from absent): one allocation of a few
// dozen bytes where a slot for every kind registered took a kilobyte.
func (r *Record) OwnCounts() {
	k := max(lastCounted(r.Sent), lastCounted(r.SentBytes))
	f := lastCounted(r.Fired)
	own := make([]int64, 2*k+f)
	copy(own, r.Sent[:k])
	copy(own[k:], r.SentBytes[:k])
	copy(own[2*k:], r.Fired[:f])
	r.Sent, r.SentBytes, r.Fired = own[:k:k], own[k:2*k:2*k], own[2*k:]
}

// lastCounted is one past the last non-zero count.
func lastCounted(counts []int64) int {
	for i := len(counts) - 1; i >= 0; i-- {
		if counts[i] != 0 {
			return i + 1
		}
	}
	return 0
}

// CountSend counts one message of kind k, size bytes encoded, and reports
// whether it is an election message (the Messages column).
func (r *Record) CountSend(k nodes.Kind, size int64) bool {
	if int(k) >= len(r.Sent) {
		r.growKinds()
	}
	r.Sent[k]++
	r.SentBytes[k] += size
	r.Bytes += size
	if k.IsElection() {
		r.Messages++
		return true
	}
	return false
}

// CountSends counts n messages of kind k, each size bytes encoded, that
// the runtime did not see one by one: the live nodes' heartbeat pings,
// which they count themselves. They are never election messages.
func (r *Record) CountSends(k nodes.Kind, n, size int64) {
	if int(k) >= len(r.Sent) {
		r.growKinds()
	}
	r.Sent[k] += n
	r.SentBytes[k] += n * size
	r.Bytes += n * size
	if k.IsElection() {
		r.Messages += n
	}
}

// growKinds makes room for the kinds registered since the record was made:
// the kinds of external programs (nodes.ExternalKind) are registered as
// the programs first send them.
func (r *Record) growKinds() {
	more := nodes.NumKinds() - len(r.Sent)
	r.Sent = append(r.Sent, make([]int64, more)...)
	r.SentBytes = append(r.SentBytes, make([]int64, more)...)
}

// CountDrop counts a message that found its receiver crashed (live: that
// found no link up to it, and was never written).
func (r *Record) CountDrop() { r.Dropped++ }

// CountLost counts n messages a fault lost.
func (r *Record) CountLost(n int64) { r.Lost += n }

// CountFire counts one expiration of timer t (a detector's suspicion
// counts as the SUSPECT timer): by kind always, and in Timeouts when t is an
// election timer (nodes.RegisterTimer).
func (r *Record) CountFire(t nodes.TimerID) {
	if int(t) >= len(r.Fired) {
		r.Fired = append(r.Fired, make([]int64, nodes.NumTimers()-len(r.Fired))...)
	}
	r.Fired[t]++
	if t.IsElection() {
		r.Timeouts++
	}
}

// Initiated notes an initiation at `at`: the first one starts turnaround.
// It reports whether it was the first.
func (r *Record) Initiated(at time.Duration) bool {
	if r.FirstInitiation < 0 {
		r.FirstInitiation = at
		return true
	}
	return false
}

// Delivered notes a message of kind k handed to its machine at `at`: the
// last election message delivered ends turnaround.
func (r *Record) Delivered(k nodes.Kind, at time.Duration) {
	if k.IsElection() {
		r.LastElection = at
	}
}

// Delayed notes that a message of kind k took d from its sender to its
// receiver; only election messages count. The simulator notes the delay
// its model gave each election message it scheduled; the live harness the
// delay measured between a send and its delivery on the host's one
// monotonic clock (both stamped when the machine's step ended).
func (r *Record) Delayed(k nodes.Kind, d time.Duration) {
	if k.IsElection() {
		r.ElectionDelayed(d)
	}
}

// ElectionDelayed notes that an election message took d (Delayed, for a
// caller that knows the kind is an election's).
func (r *Record) ElectionDelayed(d time.Duration) {
	r.Delays.Add(d)
	if d > r.Bound && r.Bound > 0 {
		r.Overruns++
	}
}

// Decided notes p's decision for leader at `at` (read in place).
func (r *Record) Decided(p int, leader *nodes.Rank, at time.Duration) {
	r.Decisions.Decided(p, leader, at)
}

// Restarted notes that p runs again as a fresh machine: it knows no leader.
func (r *Record) Restarted(p int) { r.Decisions.Forget(p) }

// NoteFault adds a fault's start or heal to the schedule (the faults
// column).
func (r *Record) NoteFault(at time.Duration, what string) {
	r.Faults = append(r.Faults, FaultEvent{At: at, What: what})
}

// Crashed notes p's crash at `at`; wasLeader says whether the latest
// decision named it (or it was the highest and nobody had decided).
func (r *Record) Crashed(p int, at time.Duration, wasLeader bool) {
	r.Crashes = append(r.Crashes, CrashRecord{Pos: p, At: at, WasLeader: wasLeader, FirstSuspicion: -1})
}

// Suspected notes that a detector suspected q at `at`, counted as one
// SUSPECT timeout; the first suspicion of a crashed process is its
// detection.
func (r *Record) Suspected(q int, at time.Duration) {
	r.CountFire(TimerSuspect)
	for i := range r.Crashes {
		c := &r.Crashes[i]
		if c.Pos == q && c.FirstSuspicion < 0 {
			c.FirstSuspicion = at
		}
	}
}

// MessagesByKind returns the non-zero message counts by kind name.
func (r *Record) MessagesByKind() map[string]int64 { return nodes.CountsByKind(r.Sent) }

// TimeoutsByKind returns the non-zero timer counts by timer name.
func (r *Record) TimeoutsByKind() map[string]int64 { return nodes.CountsByTimer(r.Fired) }
