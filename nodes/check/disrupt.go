package check

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
)

// The disruption figures of a quorum algorithm (ALGORITHMS.md,
// "Disruption"), read off the same events as the rest of the quorum watch:
// the failures that took real clusters down pass "one leader per term", so
// these measure how often and how long a cluster was without a leader, or
// with two, and why.
//
// A tenure is one process's leadership as the wire shows it: it begins with
// the process's first Leader (or LeaderAlso) message of a term and lasts
// while it keeps sending them. It ends at the process's next sign that it
// no longer leads: a crash; a Ballot or Campaign message; a Grant, or a
// Leader message, of a higher term; or a decision for another leader. A
// leader that falls silent (no Leader message for two heartbeats,
// nodes.Quorum.Heartbeat) stops counting as leading at that instant, as
// etcd's check-quorum steps down without a word, and its tenure ends at its
// next sign (a paused leader that resumes in its term leads again).
//
// A process follows the leader it last decided, from that decision until
// it campaigns (sends a Ballot or Campaign message), grants a vote of a
// term above its leader's tenure's (it supports a newer candidate), or
// crashes; one that hears its leader again in a term not below its own
// Ballot's nor its vote's follows it again (a failed pre-vote). A leader is acknowledged
// while it and its followers are a majority; leaderless time starts after
// the first acknowledgement.
//
// A leader is deposed when it learns a higher term: a message of a higher
// term other than a Ballot or Campaign message (which check-quorum's lease
// may refuse) is delivered to it, or it sends a Grant or Leader message of
// a higher term, or decides another leader, whichever comes first. A
// tenure that ends without (a crash; silence, a Ballot or a Campaign
// message not preceded by a higher term: a leader that lost its quorum or
// its lease gave up on its own) is no disruption. A deposition is a
// disruption when the leader still reached a majority then: it, plus the
// live processes that last decided it, had not campaigned by then (a vote
// for a newer term ends acknowledging it, not being reached by it: the
// wave that took the vote is the one deposing it), and to which one of its
// messages was delivered in the reach window (two heartbeats; two steady
// periods without a heartbeat) before, number a majority. A leader cut off
// (nothing delivered) or already replaced (its followers decided another,
// or campaigned) is not disrupted; one deposed while it was heard is.

// tenure is one leadership (above).
type tenure struct {
	p       int
	term    int64
	last    time.Duration   // its latest Leader message
	silent  bool            // fell silent: no longer leading, its tenure not yet ended
	reach   []time.Duration // by position: its latest delivery there; unreached, none
	deposed bool            // it learned a higher term (above), and was judged then
}

// disruptWatch is the quorum watch's disruption state.
type disruptWatch struct {
	silence  time.Duration // a leader this long without a Leader message is silent; 0: never
	window   time.Duration // the reach window
	majority int
	ranks    nodes.Ranks
	// pos is, by leader number (Checker.leaders), the position of the
	// process of that rank, -1 none, -2 not yet looked up: a trial
	// decides a handful of leaders, each found once by comparing, where
	// a map of every rank was three of a raft trial's allocations at N =
	// 5 and a hash of every decision (issue 42).
	pos       []int32
	follows   []int   // by position: the position last decided, -1 none or crashed
	followers []int32 // by position: live processes following it (above)
	// campaigning: by position, it campaigned since its last decision,
	// and so follows nobody.
	campaigning []bool
	leading     []*tenure // by position: its tenure, open or silent
	tenures     []*tenure // the same, a handful, for the per-event pass
	open        int       // tenures neither ended nor silent
	ballot      []int64   // by position: the term of its last Ballot
	balloted    []bool
	voted       []int64 // by position: the highest term of a vote that ended its following (granted)
	// byVote: by position, its campaigning is a vote for a newer term, not
	// a campaign of its own: it no longer acknowledges its leader, but a
	// deposition by that same wave still finds it reached (reached).
	byVote    []bool
	elections int64
	// Terms on the wire (Ballot, Grant, Leader kinds): the highest, and the
	// first leader's, from which term_inflation counts.
	maxTerm, baseTerm int64
	termSeen, based   bool
	disrupted         []time.Duration // when each disruption happened
	healedAt          time.Duration   // the last fault's heal
	healed            bool
	// Time with two leaders or more (stale), and without an acknowledged
	// leader since the first (leaderless): mark is the last change of
	// either, acked whether a leading process is followed by a majority.
	mark, stale, leaderless time.Duration
	acked, everAcked        bool
	// spare and spareReach are the tenures and their reach not yet
	// handed out by newTenure (tenureChunk).
	spare      []tenure
	spareReach []time.Duration
}

func newDisruptWatch(ranks nodes.Ranks, majority int, silence, window time.Duration) *disruptWatch {
	n := ranks.Len()
	if n <= smallWatch {
		return newSmallDisruptWatch(ranks, majority, silence, window)
	}
	// The by-position arrays of one type share an allocation: a quorum
	// trial at N = 5 is small enough for each to show (issue 42).
	terms, flags := make([]int64, 2*n), make([]bool, 3*n)
	d := &disruptWatch{silence: silence, window: window, majority: majority, ranks: ranks,
		follows: make([]int, n), followers: make([]int32, n), leading: make([]*tenure, n),
		campaigning: flags[:n:n],
		ballot:      terms[:n:n], balloted: flags[n : 2*n : 2*n], voted: terms[n:], byVote: flags[2*n:]}
	for i := range n {
		d.follows[i] = -1
	}
	return d
}

// smallWatch is the most processes whose disruption watch is one
// allocation, its by-position arrays in it (smallDisrupt).
const smallWatch = 8

// smallDisrupt is a small trial's disruption watch with its arrays: one
// allocation where a raft trial at N = 5 made eight: its first chunk of
// tenures and their reach (newTenure) is in it, with room for the
// positions of four leaders (pos), which it grew one at a time (issue 42).
type smallDisrupt struct {
	d         disruptWatch
	follows   [smallWatch]int
	followers [smallWatch]int32
	leading   [smallWatch]*tenure
	terms     [2 * smallWatch]int64
	flags     [3 * smallWatch]bool
	pos       [4]int32
	tenures   [tenureChunk]tenure
	reach     [tenureChunk * smallWatch]time.Duration
}

// newSmallDisruptWatch is newDisruptWatch for ranks.Len() <= smallWatch.
func newSmallDisruptWatch(ranks nodes.Ranks, majority int, silence, window time.Duration) *disruptWatch {
	n := ranks.Len()
	a := &smallDisrupt{}
	d := &a.d
	*d = disruptWatch{silence: silence, window: window, majority: majority, ranks: ranks,
		pos:     a.pos[:0],
		follows: a.follows[:n:n], followers: a.followers[:n:n], leading: a.leading[:n:n],
		campaigning: a.flags[:n:n],
		ballot:      a.terms[:n:n], balloted: a.flags[n : 2*n : 2*n], voted: a.terms[n : 2*n : 2*n], byVote: a.flags[2*n : 3*n : 3*n]}
	if n <= smallTenures {
		d.spare, d.spareReach = a.tenures[:], a.reach[:tenureChunk*n]
	}
	for i := range n {
		d.follows[i] = -1
	}
	return d
}

// unreached is a tenure's reach where none of its messages was delivered:
// below any instant less the reach window.
const unreached = time.Duration(math.MinInt64)

// position is the position of the process of rank, leader number i of
// the checker's table (-1: a rank of no process). Of equal ranks (an
// anonymous ring), the last.
func (d *disruptWatch) position(i int32, rank *nodes.Rank) int {
	for int(i) >= len(d.pos) {
		d.pos = append(d.pos, -2)
	}
	if d.pos[i] == -2 {
		d.pos[i] = -1
		for j := d.ranks.Len() - 1; j >= 0; j-- {
			if d.ranks.CmpTo(j, rank) == 0 {
				d.pos[i] = int32(j)
				break
			}
		}
	}
	return int(d.pos[i])
}

// advance accounts the time up to at, first ending the leadership of any
// leader that fell silent before it. It runs before every event the
// quorum watch is given, so nothing changed between a leader's falling
// silent and its being noticed.
func (d *disruptWatch) advance(at time.Duration) {
	if d.silence > 0 && d.open > 0 {
		for _, t := range d.tenures {
			if !t.silent && at > t.last+d.silence {
				d.account(t.last + d.silence)
				t.silent = true
				d.open--
				d.reacknowledge()
			}
		}
	}
	d.account(at)
}

// account adds the time since mark to the figures the state since then
// says it belongs to.
func (d *disruptWatch) account(at time.Duration) {
	if at <= d.mark {
		return
	}
	if d.open >= 2 {
		d.stale += at - d.mark
	}
	if d.everAcked && !d.acked {
		d.leaderless += at - d.mark
	}
	d.mark = at
}

// reacknowledge recomputes whether a leading process is followed by a
// majority, itself included, after a change of leaders or followers.
func (d *disruptWatch) reacknowledge() {
	d.acked = false
	if d.open == 0 {
		return
	}
	for _, t := range d.tenures {
		if !t.silent && d.support(t.p) >= d.majority {
			d.acked, d.everAcked = true, true
			return
		}
	}
}

// support is p and its live followers.
func (d *disruptWatch) support(p int) int {
	n := int(d.followers[p]) + 1
	if d.follows[p] == p && !d.campaigning[p] {
		n--
	}
	return n
}

// ballotIn counts p's candidacy in term as an election, once per
// (process, term): a candidate resends its ballot to each peer and on
// each retry of the same term.
func (d *disruptWatch) ballotIn(p int, term int64) {
	if !d.balloted[p] || d.ballot[p] != term {
		d.balloted[p], d.ballot[p] = true, term
		d.elections++
	}
}

// sent is told of every message sent, after the quorum watch's own checks.
func (d *disruptWatch) sent(at time.Duration, p int, q *nodes.Quorum, m *nodes.Message) {
	switch {
	case q.IsCampaign(m.Kind):
		if m.Kind == q.Ballot {
			d.sawTerm(m.A)
			d.ballotIn(p, m.A)
		}
		d.end(at, p, gaveUp)
		d.campaign(p)
		d.byVote[p] = false
	case m.Kind == q.Grant:
		d.sawTerm(m.A)
		if t := d.leading[p]; t != nil && m.A > t.term {
			d.end(at, p, deposed)
		}
		d.granted(p, m)
	case q.IsLeader(m.Kind):
		d.sawTerm(m.A)
		d.lead(at, p, m.A)
	}
}

func (d *disruptWatch) sawTerm(term int64) {
	if !d.termSeen || term > d.maxTerm {
		d.maxTerm, d.termSeen = term, true
	}
}

// lead notes a Leader message of p in term: the start of a tenure, the
// continuation of one, or a silent leader leading again.
func (d *disruptWatch) lead(at time.Duration, p int, term int64) {
	t := d.leading[p]
	switch {
	case t != nil && term < t.term:
		return // a late message of a term it has left
	case t != nil && term == t.term:
		t.last = at
		if t.silent { // it paused and leads on
			t.silent = false
			d.open++
			d.reacknowledge()
		}
		return
	case t != nil:
		d.end(at, p, deposed) // a new term without a Ballot seen: it left the old
	}
	if !d.based {
		d.baseTerm, d.based = term, true
	}
	t = d.newTenure(p, term, at)
	for q := range t.reach {
		t.reach[q] = unreached
	}
	d.leading[p] = t
	d.tenures = append(d.tenures, t)
	d.open++
	d.reacknowledge()
}

// tenureChunk is how many tenures, with their reach, a small trial's
// watch (smallTenures) allocates at once: a raft trial at N = 5 with a
// leader crash has two or three, each two allocations (issue 42).
const (
	tenureChunk  = 4
	smallTenures = 64 // processes
)

// newTenure is p's new tenure of term from at, its reach zero: carved
// from the watch's chunk when the trial is small, on its own otherwise
// (a chunk of a big trial's reach would hold megabytes unused).
func (d *disruptWatch) newTenure(p int, term int64, at time.Duration) *tenure {
	n := len(d.follows)
	if n > smallTenures {
		return &tenure{p: p, term: term, last: at, reach: make([]time.Duration, n)}
	}
	if len(d.spare) == 0 {
		d.spare = make([]tenure, tenureChunk)
		d.spareReach = make([]time.Duration, tenureChunk*n)
	}
	t := &d.spare[0]
	d.spare = d.spare[1:]
	*t = tenure{p: p, term: term, last: at, reach: d.spareReach[:n:n]}
	d.spareReach = d.spareReach[n:]
	return t
}

// delivered notes a message m of from delivered to to.
func (d *disruptWatch) delivered(at time.Duration, to, from int, q *nodes.Quorum, m *nodes.Message) {
	if t := d.leading[to]; t != nil && !t.deposed && m.A > t.term && !q.IsCampaign(m.Kind) {
		d.depose(at, t)
	}
	t := d.leading[from]
	if t == nil {
		return
	}
	leader := q.IsLeader(m.Kind)
	t.reach[to] = at
	if leader && d.campaigning[to] && d.follows[to] == from && (!d.balloted[to] || t.term >= d.ballot[to]) && t.term >= d.voted[to] {
		d.campaigning[to], d.byVote[to] = false, false
		d.followers[from]++
		d.reacknowledge()
	}
}

// granted notes p's vote m: a vote for a term above its leader's ends its
// following, as a campaign does (it now supports a candidate of a newer
// term), until it decides or hears a leader of a term not below the vote's.
func (d *disruptWatch) granted(p int, m *nodes.Message) {
	l := d.follows[p]
	if m.B == 0 || l < 0 || l == p {
		return
	}
	if t := d.leading[l]; t != nil && m.A > t.term {
		d.voted[p] = max(d.voted[p], m.A)
		if !d.campaigning[p] {
			d.campaign(p)
			d.byVote[p] = true
		}
	}
}

// campaign notes p's campaigning: it follows nobody until it decides or
// hears its leader again.
func (d *disruptWatch) campaign(p int) {
	if d.campaigning[p] {
		return
	}
	d.campaigning[p] = true
	if l := d.follows[p]; l >= 0 {
		d.followers[l]--
	}
	d.reacknowledge()
}

// depose notes that t's leader learned a higher term at at: a disruption if
// it still reached a majority.
func (d *disruptWatch) depose(at time.Duration, t *tenure) {
	t.deposed = true
	if d.reached(t, at) >= d.majority {
		d.disrupted = append(d.disrupted, at)
	}
}

// How a tenure ends (end).
const (
	crashed = iota // no disruption
	gaveUp         // a disruption only if it had learned a higher term before
	deposed        // it learns a higher term now, if not before
)

// end ends p's tenure, if it has one, at at, in one of the ways above.
func (d *disruptWatch) end(at time.Duration, p int, how int) {
	t := d.leading[p]
	if t == nil {
		return
	}
	if how == deposed && !t.deposed {
		d.depose(at, t)
	}
	d.leading[p] = nil
	d.tenures = slices.DeleteFunc(d.tenures, func(o *tenure) bool { return o == t })
	if !t.silent {
		d.open--
		d.reacknowledge()
	}
}

// reached counts t's leader and its live followers that one of its
// messages reached in the window before at. Its O(N) pass runs once a
// tenure.
func (d *disruptWatch) reached(t *tenure, at time.Duration) int {
	n := 1
	for q, f := range d.follows {
		if q != t.p && f == t.p && (!d.campaigning[q] || d.byVote[q]) && t.reach[q] >= at-d.window {
			n++
		}
	}
	return n
}

// decided notes p's decision for the process at position l (-1: a rank of
// no process), ending p's own tenure first if l is another.
func (d *disruptWatch) decided(at time.Duration, p, l int) {
	if l != p {
		d.end(at, p, deposed)
	}
	d.follow(p, l)
	d.reacknowledge()
}

func (d *disruptWatch) follow(p, l int) {
	if old := d.follows[p]; old >= 0 && !d.campaigning[p] {
		d.followers[old]--
	}
	d.follows[p], d.campaigning[p], d.byVote[p] = l, false, false
	if l >= 0 {
		d.followers[l]++
	}
}

// crashed ends p's tenure (no disruption: it was not deposed) and its
// following.
func (d *disruptWatch) crashed(at time.Duration, p int) {
	d.end(at, p, crashed)
	d.follow(p, -1)
	d.reacknowledge()
}

// fault notes a fault event: a heal (of a link fault, a restart or a
// resume, trial.Event.What) moves the instant after which disruptions are
// counted again in heal_disruptions.
func (d *disruptWatch) fault(at time.Duration, what string) {
	for _, verb := range []string{"heal ", "restart(", "resume("} {
		if strings.HasPrefix(what, verb) {
			d.healedAt, d.healed = at, true
			return
		}
	}
}

// Disruption is the disruption figures of a trial (ALGORITHMS.md,
// "Disruption"): all of them for a quorum trial; for the families without
// terms (beliefs.go) Elections (ELECTION steps), Leaderless and
// StaleLeader, the others 0.
type Disruption struct {
	Elections     int64         // candidacies: distinct (process, term) with a Ballot (a server's: a candidacy or leadership logged)
	Disruptions   int64         // leaders deposed while they reached a majority
	Leaderless    time.Duration // after the first, time with no leader followed by a majority
	StaleLeader   time.Duration // time with two or more processes leading
	TermInflation int64         // highest term on the wire less the first leader's
	// HealDisruptions counts disruptions at or after the last heal; Healed
	// is false when no fault healed (HealDisruptions is then meaningless).
	HealDisruptions int64
	Healed          bool
}

// figures closes the watch at end.
func (d *disruptWatch) figures(end time.Duration) Disruption {
	d.advance(end)
	f := Disruption{Elections: d.elections, Disruptions: int64(len(d.disrupted)),
		Leaderless: d.leaderless, StaleLeader: d.stale, Healed: d.healed}
	if d.based {
		f.TermInflation = d.maxTerm - d.baseTerm
	}
	for _, at := range d.disrupted {
		if d.healed && at >= d.healedAt {
			f.HealDisruptions++
		}
	}
	return f
}
