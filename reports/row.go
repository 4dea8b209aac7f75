package reports

import (
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Row is one trial's result: the stable columns of DESIGN.md ("Results") plus
// columns added since. Column names never change; new ones are appended.
type Row struct {
	Algorithm      string
	Variant        string
	Runtime        string // "sim" or "live"
	Scenario       string // scenario name; "adhoc" for a command-line run
	Nodes          int
	Arrangement    string // how ids were placed: random, ascending, descending, list, pow(b)
	Initiators     string // the initiator selection as given, or "all" for StartsAll algorithms
	Trial          int
	Seed           uint64 // the trial's own seed (derived from the run's seed and the trial)
	Messages       int64  // election messages sent (maintenance kinds excluded)
	MessagesByKind Counts // every message kind, maintenance included
	Bytes          int64  // encoded bytes of all messages sent
	Timeouts       int64  // timer expirations and detector suspicions
	TimeoutsByKind Counts
	TurnaroundS    Opt[float64] // first initiation → last election message delivered, seconds
	TurnaroundT    Opt[float64] // the same in units of T
	DecidedS       Opt[float64] // first initiation → every non-faulty process knows the leader
	DecidedT       Opt[float64]
	Leader         string // the leader every non-faulty process decided; empty if none agreed
	// The three flags are held together, where each beside a number took
	// 8 bytes of a row (a run or a report holds every row).
	Correct bool
	Live    bool
	// Unseen says messages, bytes and timeouts were not visible (a server
	// run from outside, docs/SERVERS.md): their cells are empty (NA), not
	// 0, and no figure counts them. An empty messages cell reads back so.
	Unseen           bool
	SafetyViolations int
	TheoryMessages   Opt[int64] // ALGORITHMS.md's exact figure for this configuration
	Error            string     // why the trial could not run or complete

	DetectS    Opt[float64] // crash → first suspicion, seconds (quorum algorithms: crash → first ballot)
	FailoverS  Opt[float64] // crash → every live process knows the new leader, seconds (quorum algorithms: known by a majority, Raft's "downtime")
	FailoverT  Opt[float64]
	Terms      Opt[int64] // quorum algorithms: terms or epochs used
	SplitVotes Opt[int64] // quorum algorithms: terms that ended without a winner

	TheoryBound Opt[int64] // ALGORITHMS.md's upper bound on messages, where it gives one
	Latency     string     // the latency model, as given
	TS          float64    // T, the mean one-way latency, in seconds
	Events      int64      // events the runtime processed
	Violation   string     // the first safety or liveness violation, described

	// Faults is the fault schedule the trial applied, as
	// "t=TIME:KIND(TARGETS)" entries joined by ';' ("t=2ms:crash(3);t=12ms:restart(3)").
	Faults string
	// Expect is the verdict on the scenario's per-trial expectations: empty
	// when there are none, "pass" (ExpectNotLive for a trial its scenario
	// expected not to be live), "fail: " and what failed, or, for a live
	// trial the host took outside its algorithm's model in every attempt,
	// ExpectUnjudged followed by what the verdict would have been.
	Expect string
	// TermLeaders says, for a quorum algorithm, which process won which
	// term: "TERM=POSITION" entries in the order the terms began, joined by
	// ';', with "-" for a term nobody won ("1=3;2=-;3=0"). Positions are
	// those of the faults column.
	TermLeaders string

	// AnonymousRefused (live runs) counts connections the nodes refused
	// that proved no identity: a stranger, or someone claiming a node's id
	// without its key. They are blamed on no node; a node is excluded
	// only for what it proved.
	AnonymousRefused Opt[int64]

	// DS is D, the latency model's delay bound that timeouts written as
	// "2D" are multiples of, in seconds: the largest delay, or the p99.9 of
	// a model without one (normal, exponential).
	DS float64
	// Budget names the budget the trial exhausted, "events" or "inflight"
	// (the flags --max-events and --max-inflight), when it was stopped for
	// it; the error column says where. Empty otherwise.
	Budget string
	// DelayMeanS and DelayP99S are the mean and the p99 one-way delay of
	// the trial's election messages, in seconds: the T the network gave
	// (the simulator: its model's delays; live: measured between send and
	// delivery on the host's one monotonic clock). TurnaroundTM is
	// turnaround in units of DelayMeanS, where turnaround_t divides by the
	// configured T. Empty when no election message was delivered.
	DelayMeanS, DelayP99S, TurnaroundTM Opt[float64]

	// Mutual-exclusion algorithms only (empty for elections):
	// Entries counts passages through the critical section;
	// EntryMessages and ExitMessages are the messages of the kinds the
	// algorithm spends to enter and to leave, per entry and per exit;
	// ClientDelay is the mean time from a request to its entry and
	// SyncDelay the mean time from an exit to the next entry of a process
	// that was already waiting (both in seconds and in T); Throughput is
	// exits per second from the first request to the last exit; and
	// VotingSet is K, how many other processes each asks (maekawa).
	Entries       Opt[int64]
	EntryMessages Opt[float64]
	ExitMessages  Opt[float64]
	ClientDelayS  Opt[float64]
	ClientDelayT  Opt[float64]
	SyncDelayS    Opt[float64]
	SyncDelayT    Opt[float64]
	Throughput    Opt[float64]
	VotingSet     Opt[int64]

	// Overruns counts the election messages that took longer than the
	// delay bound the machines were given (d_s; live, plus the runtime's
	// allowance); empty when the trial had no bound. Reruns (live rows)
	// counts the attempts at this trial that were run again, and not
	// kept, because the host pushed a message of an algorithm that
	// assumes bounded delay past its bound (trial.OutsideModel).
	Overruns, Reruns Opt[int64]

	// The disruption figures (ALGORITHMS.md, "Disruption"; quorum
	// algorithms all of them, ring, bully and multicast the ones that need
	// no terms: LeaderlessS/T, StaleLeaderS and, for bully and multicast,
	// Elections; mutual exclusion none): Elections counts candidacies (a
	// process's Ballot in a term; an ELECTION step); Disruptions the leaders deposed while
	// they still reached a majority, HealDisruptions those at or after
	// the last fault's heal (empty when no fault healed); LeaderlessS
	// (and in T, LeaderlessT) the time after the first leader during
	// which no leading process was followed by a majority; StaleLeaderS
	// the time during which two or more processes led, in any terms; and
	// TermInflation how far the highest term on the wire rose above the
	// first leader's.
	Elections, Disruptions   Opt[int64]
	LeaderlessS, LeaderlessT Opt[float64]
	StaleLeaderS             Opt[float64]
	TermInflation            Opt[int64]
	HealDisruptions          Opt[int64]

	// Disputes (live rows) are the refusals the nodes reported of one
	// another: "BY>OF" entries (BY said it refused OF's identity), or
	// "BY>path(BY>OF)" where BY's link to OF met another identity (the
	// path is at fault, not OF), joined by ';'. A node's word is
	// evidence, never a verdict: the harness excludes a node only on its
	// own check of the node's identity and key.
	Disputes string

	// ClockErrorS (live rows of nodes on several hosts, --netns) bounds
	// how far the estimate of any host's clock offset may be from the
	// truth, in seconds: every time a node reported is on the harness's
	// clock within it, and a figure between two hosts' events within
	// twice it. Empty (NA) where every clock is one: the simulator, one
	// host; 0 is a bound.
	ClockErrorS Opt[float64]
}

// Columns lists the CSV header in order. The first 24 are DESIGN.md's stable
// columns; never rename or reorder them.
var Columns = []string{
	"algorithm", "variant", "runtime", "scenario", "nodes", "arrangement", "initiators", "trial",
	"seed", "messages", "messages_by_kind", "bytes", "timeouts", "timeouts_by_kind",
	"turnaround_s", "turnaround_t", "decided_s", "decided_t", "leader", "correct",
	"safety_violations", "live", "theory_messages", "error",
	"detect_s", "failover_s", "failover_t", "terms", "split_votes",
	"theory_bound", "latency", "t_s", "events", "violation",
	"faults", "expect", "term_leaders", "anonymous_refused", "d_s", "budget",
	"delay_mean_s", "delay_p99_s", "turnaround_tm",
	"entries", "entry_messages", "exit_messages", "client_delay_s", "client_delay_t",
	"sync_delay_s", "sync_delay_t", "throughput", "voting_set",
	"overruns", "reruns",
	"elections", "disruptions", "leaderless_s", "leaderless_t", "stale_leader_s", "term_inflation", "heal_disruptions",
	"disputes", "clock_error_s",
}

// Tally counts rows handed to it one at a time (Add): a run's end and its
// report read results.csv as a stream and keep these counts, not the rows.
type Tally struct {
	Rows int
	// BudgetHits are the rows whose trial was stopped because it exhausted
	// a budget (the budget column).
	BudgetHits int
	// Reruns are the live trials run again because the host took them
	// outside their algorithm's model, RerunAttempts the attempts that
	// were not kept (the reruns column), and RerunsKept the trials kept
	// with overruns all the same.
	Reruns, RerunAttempts, RerunsKept int
}

// Add counts r.
func (t *Tally) Add(r *Row) {
	t.Rows++
	if r.Budget != "" {
		t.BudgetHits++
	}
	if n := r.Reruns; n.IsSet() && n.Get() > 0 {
		t.Reruns++
		t.RerunAttempts += int(n.Get())
		if r.Overruns.Get() > 0 {
			t.RerunsKept++
		}
	}
}

// TallyOf counts rows.
func TallyOf(rows []Row) Tally {
	var t Tally
	for i := range rows {
		t.Add(&rows[i])
	}
	return t
}

// Opt is an optional number: an empty cell when not set. It is held in the
// number's own 8 bytes, not beside a flag: a row holds 33 of them, and a
// value and a bool took 16 bytes each (a run or a report holds every row).
// The zero Opt is unset, so a Row literal leaves the fields it does not name
// unset.
type Opt[T int64 | float64] struct {
	b uint64 // the number's bits XOR optUnset: 0 is unset
}

// optUnset is the one bit pattern an Opt cannot hold: as a float64 a
// signalling NaN with a payload, which no arithmetic yields (a NaN
// computed or parsed is quiet, and keeps its own bits); as an int64
// 9,218,868,437,227,408,301, beyond any count or size a row holds (a cell
// reading it is refused: OptHolds).
const optUnset = 0x7ff0_0000_0000_0bad

// Some returns a set optional value. v must not be optUnset's pattern
// (OptHolds): a parser checks a user's number first.
func Some[T int64 | float64](v T) Opt[T] { return Opt[T]{b: optBits(v) ^ optUnset} }

// OptHolds reports whether v can be held as a set Opt: every number but
// the one bit pattern that marks an unset one.
func OptHolds[T int64 | float64](v T) bool { return optBits(v) != optUnset }

// IsSet reports whether the value is set (its cell is not empty).
func (o Opt[T]) IsSet() bool { return o.b != 0 }

// Get returns the value, 0 when unset.
func (o Opt[T]) Get() T {
	if o.b == 0 {
		return 0
	}
	bits := o.b ^ optUnset
	// Both of T's types are 8 bytes: the bits are the value. A type
	// switch on T cost 6 ns a read, which every figure over every row
	// pays.
	return *(*T)(unsafe.Pointer(&bits))
}

// Value returns the value and whether it is set.
func (o Opt[T]) Value() (T, bool) { return o.Get(), o.b != 0 }

// optBits is v's bits: a float64's IEEE 754 pattern, an int64's two's
// complement.
func optBits[T int64 | float64](v T) uint64 { return *(*uint64)(unsafe.Pointer(&v)) }

// MessagesSeen is Messages, unset when the messages were not visible
// (Unseen).
func (r *Row) MessagesSeen() Opt[float64] {
	if r.Unseen {
		return Opt[float64]{}
	}
	return Some(float64(r.Messages))
}

// Counts is a count per kind name, kept sorted by name.
type Counts []KindCount

// KindCount is one entry of Counts.
type KindCount struct {
	Kind string
	N    int64
}

// Total is the sum of all counts.
func (c Counts) Total() int64 {
	var t int64
	for _, kc := range c {
		t += kc.N
	}
	return t
}

// Get returns the count of kind, 0 if absent.
func (c Counts) Get(kind string) int64 {
	for _, kc := range c {
		if kc.Kind == kind {
			return kc.N
		}
	}
	return 0
}

// String formats as KIND=n;KIND=n in sorted kind order (DESIGN.md).
func (c Counts) String() string {
	var b strings.Builder
	for i, kc := range c {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(kc.Kind)
		b.WriteByte('=')
		b.WriteString(strconv.FormatInt(kc.N, 10))
	}
	return b.String()
}

// CountsFromMap builds sorted Counts, dropping zero entries.
func CountsFromMap(m map[string]int64) Counts {
	c := make(Counts, 0, len(m))
	for k, n := range m {
		if n != 0 {
			c = append(c, KindCount{k, n})
		}
	}
	// Kinds are a map's keys, each once: any sort gives this order. Not
	// sort.Slice, whose swapper by reflection and closure were two
	// allocations of every row's two columns (issue 42).
	slices.SortFunc(c, func(a, b KindCount) int { return strings.Compare(a.Kind, b.Kind) })
	return c
}

// ExpectNotLive is the expect column of a trial that was not live, as its
// scenario expects ("liveness: never": no side of a partition holds a
// majority; "liveness: at-least P%": some trials may outlast the
// deadline). Such a trial met what was expected: reports show it in grey,
// apart from the failures.
const ExpectNotLive = "pass: not live, as expected"

// ExpectUnjudged begins the expect column of a live trial kept after
// trial.MaxReruns attempts that all went outside its algorithm's model
// (a bounded-delay algorithm whose messages the host held past D, with no
// fault stretching delays): what it shows measures the host, not the
// algorithm, so its expectations are not judged, pass or fail alike
// (judging only its failures would bias the run towards correct). What
// the verdict would have been follows, for the reader.
const ExpectUnjudged = "unjudged: outside its model in every attempt; "

// Unjudged reports whether the row's expectations were not judged
// (ExpectUnjudged): no expectation, per trial or over trials, counts it.
func (r *Row) Unjudged() bool { return strings.HasPrefix(r.Expect, ExpectUnjudged) }

// ExpectedOutcome reports whether a trial that is not live is so as its
// scenario expects, and is otherwise sound (safe, no error): not a failure.
func (r *Row) ExpectedOutcome() bool {
	return r.Expect == ExpectNotLive && !r.Live && r.SafetyViolations == 0 && r.Error == ""
}
