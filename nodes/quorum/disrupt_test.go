package quorum_test

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/trial"
)

// The disruption figures (ALGORITHMS.md, "Disruption") on small raft
// traces fed by hand, each figure computed by hand in the comments. Three
// processes at positions 0, 1, 2 (ranks 1, 2, 3), a majority of two,
// heartbeats every 5T, so a leader is silent after 10T without one and
// reaches the followers that heard it within 10T before its last.

// script is a trace under construction: steps at times, fed to the
// checker in time order (in the order given at equal times) by figures.
type script struct {
	t     *testing.T
	c     *check.Checker
	steps []step
}

type step struct {
	at time.Duration
	do func()
}

func (s *script) on(k float64, do func()) { s.steps = append(s.steps, step{at(k), do}) }

func newScript(t *testing.T) *script {
	t.Helper()
	alg, _, err := nodes.Lookup("raft")
	if err != nil {
		t.Fatal(err)
	}
	ranks := nodes.RanksOf([]nodes.Rank{nodes.RankOf(1), nodes.RankOf(2), nodes.RankOf(3)})
	c := check.New(ranks)
	if err := c.WatchQuorum(alg, nodes.Config{N: 3, T: T, Params: nodes.Params{"heartbeat": "5T"}}); err != nil {
		t.Fatal(err)
	}
	return &script{t: t, c: c}
}

func at(k float64) time.Duration { return time.Duration(k * float64(T)) }

// send sends m from p at k T, delivered a T later to each of to.
func (s *script) send(k float64, p int, m nodes.Message, to ...int) {
	s.on(k, func() { s.c.Sent(at(k), p, m) })
	for _, q := range to {
		s.on(k+1, func() { s.c.Delivered(at(k+1), q, p, m) })
	}
}

func (s *script) decide(k float64, p, leader int) {
	s.on(k, func() { s.c.Decided(at(k), p, nodes.RankOf(uint64(leader+1))) })
}

func (s *script) fault(k float64, what string) {
	s.on(k, func() { s.c.Event(&trial.Event{At: at(k), Kind: trial.EvFault, What: what}) })
}

func (s *script) crash(k float64, p int) { s.on(k, func() { s.c.Crashed(at(k), p) }) }

// heartbeats sends p's heartbeats of term every 5T from k to until,
// delivered to each of to; each receiver decides p at the first.
func (s *script) heartbeats(k, until float64, p int, term int64, to ...int) {
	for ; k <= until; k += 5 {
		s.send(k, p, msg("HEARTBEAT", term, 0), to...)
	}
}

// elect makes p leader of term at k T: its ballot, the others' votes
// delivered at k+1, its first heartbeat at k+2, delivered at k+3, when
// every other process decides it. Heartbeats then go on to until.
func (s *script) elect(k float64, p int, term int64, until float64) {
	s.send(k, p, msg("REQUEST_VOTE", term, 0))
	for _, q := range others(p) {
		s.send(k, q, msg("VOTE", term, 1), p)
	}
	s.decide(k+2, p, p)
	s.heartbeats(k+2, until, p, term, others(p)...)
	for _, q := range others(p) {
		s.decide(k+3, q, p)
	}
}

func others(p int) []int {
	var o []int
	for q := range 3 {
		if q != p {
			o = append(o, q)
		}
	}
	return o
}

func (s *script) figures(k float64) check.Disruption {
	slices.SortStableFunc(s.steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	for _, st := range s.steps {
		st.do()
	}
	return s.c.Finish(new(trial.NewDecisions(3)), false, at(k)).Disruption
}

func near(a, b time.Duration) bool { d := a - b; return d < time.Microsecond && d > -time.Microsecond }

// A fault-free trial: one election, nothing else. Every figure 0 but
// elections (1).
func TestDisruptionNone(t *testing.T) {
	s := newScript(t)
	s.elect(0, 0, 1, 100)
	f := s.figures(100)
	if f != (check.Disruption{Elections: 1}) {
		t.Fatalf("fault-free: %+v", f)
	}
}

// etcd #8499: follower 2 is cut off from 10T to 115T and campaigns into
// the void in terms 2..6, then in term 7 after the heal. Leader 0 steps
// down at 121T, granting term 7 while 1 and 2 both heard it at 118T:
// deposed, not cut off. elections: 0's term 1 and 2's terms 2..7, 7;
// disruptions 1, at 121T after the heal at 115T; term_inflation 7 − 1 = 6;
// leaderless from 121T until 2's follower 0 decides it at 123T, 2T;
// never two leaders.
func TestDisruptionRejoiningFollower(t *testing.T) {
	s := newScript(t)
	s.elect(0, 0, 1, 9)
	s.fault(10, "partition(isolate(1))[0,1|2]")
	for term := int64(2); term <= 6; term++ { // ballots at 30T, 50T, ..., 110T
		s.heartbeats(12+20*float64(term-2), 12+20*float64(term-2)+15, 0, 1, 1)
		s.send(30+20*float64(term-2), 2, msg("REQUEST_VOTE", term, 0))
	}
	s.heartbeats(112, 112, 0, 1, 1)
	s.fault(115, "heal partition(isolate(1))")
	s.heartbeats(117, 117, 0, 1, 1, 2)
	s.send(120, 2, msg("REQUEST_VOTE", 7, 0), 0, 1)
	s.send(121, 0, msg("VOTE", 7, 1), 2)
	s.send(121, 1, msg("VOTE", 7, 1), 2)
	s.decide(122, 2, 2)
	s.heartbeats(122, 130, 2, 7, 0, 1)
	s.decide(123, 0, 2)
	s.decide(123, 1, 2)
	f := s.figures(130)
	want := check.Disruption{Elections: 7, Disruptions: 1, Leaderless: 2 * T, TermInflation: 6, HealDisruptions: 1, Healed: true}
	if !near(f.Leaderless, want.Leaderless) {
		t.Errorf("leaderless %v, want %v", f.Leaderless, want.Leaderless)
	}
	f.Leaderless = want.Leaderless
	if f != want {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
}

// The leader cut off: 0 is isolated at 10T and heartbeats into the void;
// 1 wins term 2 at 32T (2 follows it at 33T); at the heal (60T) 0 hears 1's
// heartbeat at 63T and decides 1. Two leaders from 32T to 63T:
// stale_leader_s 31T. Not a disruption: when it last sent, 0 reached
// nobody (its followers had left it). Leaderless from 31T, when 2 grants
// term 2 and so no longer follows 0, until 2 decides 1 at 33T: 2T. No
// heal: heal_disruptions is meaningless (Healed false) until the fault
// event says so, here at 60T with 0 after it.
func TestDisruptionStaleLeader(t *testing.T) {
	s := newScript(t)
	s.elect(0, 0, 1, 9)
	s.heartbeats(12, 57, 0, 1) // cut off: delivered to nobody
	s.send(30, 1, msg("REQUEST_VOTE", 2, 0), 2)
	s.send(31, 2, msg("VOTE", 2, 1), 1)
	s.decide(32, 1, 1)
	s.heartbeats(32, 32, 1, 2, 2)
	s.decide(33, 2, 1)
	s.heartbeats(37, 57, 1, 2, 2)
	s.fault(60, "heal partition(isolate(0))")
	s.heartbeats(62, 62, 0, 1, 1, 2)
	s.heartbeats(62, 62, 1, 2, 0, 2)
	s.decide(63, 0, 1)
	s.heartbeats(67, 80, 1, 2, 0, 2)
	f := s.figures(80)
	if !near(f.StaleLeader, 31*T) {
		t.Errorf("stale_leader %v, want 31T = %v", f.StaleLeader, 31*T)
	}
	if !near(f.Leaderless, 2*T) {
		t.Errorf("leaderless %v, want 2T = %v", f.Leaderless, 2*T)
	}
	f.StaleLeader, f.Leaderless = 0, 0
	if want := (check.Disruption{Elections: 2, TermInflation: 1, Healed: true}); f != want {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
}

// A vote for a newer term ends following (ALGORITHMS.md, "Disruption"),
// not being reached. 0 leads term 1; from 10T it reaches only 1. 2 (cut
// off from 0, as in Cloudflare's outage) campaigns for term 2 at 30T and 1
// grants it at 31T; 0's heartbeat of 31T reaches 1 at 32T, which answers
// in term 2, deposing 0 at 33T while it still reached 1: a disruption, the
// pattern the column exists for (1's vote was taken by the wave that
// deposed 0). Leaderless from 1's vote (31T) until 1 decides 2 (33T): 2T.
// Two leaders from 2's first heartbeat (32T) until 0, silent since 31T,
// stops leading at 41T: 9T. elections 2, term_inflation 1.
func TestDisruptionVoteEndsFollowing(t *testing.T) {
	s := newScript(t)
	s.elect(0, 0, 1, 9)
	s.heartbeats(11, 31, 0, 1, 1)
	s.send(30, 2, msg("REQUEST_VOTE", 2, 0), 1)
	s.send(31, 1, msg("VOTE", 2, 1), 2)
	s.decide(32, 2, 2)
	s.heartbeats(32, 47, 2, 2, 1)
	s.send(32, 1, msg("HEARTBEAT_ACK", 2, 0), 0)
	s.decide(33, 1, 2)
	f := s.figures(50)
	if !near(f.Leaderless, 2*T) || !near(f.StaleLeader, 9*T) {
		t.Errorf("leaderless %v, want 2T = %v; stale_leader %v, want 9T = %v", f.Leaderless, 2*T, f.StaleLeader, 9*T)
	}
	f.Leaderless, f.StaleLeader = 0, 0
	if want := (check.Disruption{Elections: 2, Disruptions: 1, TermInflation: 1}); f != want {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
}

// A leader crash's failover is leaderless time, not a disruption: 0 leads
// term 1 and crashes at 20T; 1 and 2 both campaign (term 2, split, at 30T
// and 31T), 2 wins term 3 at 52T and its follower decides it at 53T:
// leaderless 53T − 20T = 33T; elections 4 (0 in term 1, 1 and 2 in term 2,
// 2 in term 3); term_inflation 3 − 1 = 2.
func TestDisruptionFailover(t *testing.T) {
	s := newScript(t)
	s.elect(0, 0, 1, 17)
	s.crash(20, 0)
	s.send(30, 1, msg("REQUEST_VOTE", 2, 0), 2)
	s.send(31, 2, msg("REQUEST_VOTE", 2, 0), 1)
	s.send(50, 2, msg("REQUEST_VOTE", 3, 0), 1)
	s.send(51, 1, msg("VOTE", 3, 1), 2)
	s.decide(52, 2, 2)
	s.heartbeats(52, 52, 2, 3, 1)
	s.decide(53, 1, 2)
	s.heartbeats(57, 70, 2, 3, 1)
	f := s.figures(70)
	if !near(f.Leaderless, 33*T) {
		t.Errorf("leaderless %v, want 33T = %v", f.Leaderless, 33*T)
	}
	f.Leaderless = 0
	if want := (check.Disruption{Elections: 4, TermInflation: 2}); f != want {
		t.Fatalf("got %+v\nwant %+v", f, want)
	}
}

// Check-quorum's silent step-down. 0 leads term 1 and sends its last
// heartbeat at 22T, delivered to 1 and 2 at 23T; then it is silent until
// its ballot of term 6 at 50T, so it stopped leading at 22T + 10T (two
// heartbeats of silence) and is leaderless from then to the end (80T; term
// 6 is never won): 48T. Deposed: 2, back in term 5, answers it at 25T, a
// higher term while 1 and 2 follow it and heard it 2T before: a
// disruption (term_inflation 6 − 1 = 5). On its own: without that answer
// it lost its quorum and gave up, no disruption.
func TestDisruptionSilentStepDown(t *testing.T) {
	for _, answered := range []bool{true, false} {
		s := newScript(t)
		s.elect(0, 0, 1, 22)
		want := check.Disruption{Elections: 2, TermInflation: 5}
		if answered {
			s.send(24, 2, msg("HEARTBEAT_ACK", 5, 0), 0)
			want.Disruptions = 1
		}
		s.send(50, 0, msg("REQUEST_VOTE", 6, 0))
		f := s.figures(80)
		if !near(f.Leaderless, 48*T) {
			t.Errorf("answered %v: leaderless %v, want 48T = %v", answered, f.Leaderless, 48*T)
		}
		f.Leaderless = 0
		if f != want {
			t.Fatalf("answered %v: got %+v\nwant %+v", answered, f, want)
		}
	}
}
