package check_test

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/trial"
)

// A server's terms come from its members' logged roles (check.ServerRole):
// a candidacy opens a term, a leadership wins it; a leader that becomes
// follower of a higher term while its follower still follows it was
// disrupted; the highest term logged less the first leader's is the
// inflation; two leaders of one term break safety.
func TestServerRoles(t *testing.T) {
	c, role, decide := serverLed(t)
	// Member 2 is cut off from the leader: it campaigns in terms 3 to 5
	// and its term-5 vote request deposes the leader, whom member 1
	// still followed.
	for term := int64(3); term <= 5; term++ {
		role(10*time.Duration(term), 2, check.RoleCandidate, term)
	}
	role(60, 0, check.RoleFollower, 5)
	role(61, 1, check.RoleFollower, 5)
	role(70, 1, check.RoleCandidate, 6)
	role(71, 1, check.RoleLeader, 6)
	for p := range 3 {
		decide(71, p, 1)
	}
	v := c.Finish(&trial.Decisions{}, false, 100*ms)
	if len(v.Terms) != 5 || v.Terms[0].Leader != 0 || v.Terms[4].Leader != 1 || v.SplitVotes() != 3 {
		t.Errorf("terms %+v; want 2 to 6, led by 0 and 1, three split", v.Terms)
	}
	d := v.Disruption
	if d.Elections != 5 || d.Disruptions != 1 || d.TermInflation != 4 {
		t.Errorf("disruption %+v; want 5 elections, 1 disruption, term inflation 4", d)
	}
	if v.Violations != 0 {
		t.Errorf("violations %v; want none", v.Recorded)
	}
	role(80, 2, check.RoleLeader, 6)
	if v := c.Finish(&trial.Decisions{}, false, 100*ms); v.Violations != 1 || v.Recorded[0].Kind != "two-leaders" {
		t.Errorf("a second leader of term 6: violations %v; want two-leaders", v.Recorded)
	}
}

// A paused leader logs nothing: its followers are seen to leave it when a
// newer candidate reaches the one that did not campaign (it logs that it
// follows the higher term), and the cluster is leaderless from then until
// the new leader is followed by a majority.
func TestServerPausedLeaderLeaderless(t *testing.T) {
	c, role, decide := serverLed(t)
	// Member 0 is paused from 50: member 1's timer fires at 100, its
	// request reaches member 2 at 101, it leads at 102, member 2
	// follows it at 105.
	role(100, 1, check.RoleCandidate, 3)
	role(101, 2, check.RoleFollower, 3)
	role(102, 1, check.RoleLeader, 3)
	decide(102, 1, 1)
	decide(105, 2, 1)
	v := c.Finish(&trial.Decisions{}, false, 200*ms)
	if got := v.Disruption.Leaderless; got != 4*ms {
		t.Errorf("leaderless %v; want 4ms (member 2 leaves the paused leader at 101, follows the new one at 105)", got)
	}
	if v.Disruption.Disruptions != 0 {
		t.Errorf("disruptions %d; want 0 (the paused leader was not deposed)", v.Disruption.Disruptions)
	}
}

// A ZooKeeper server logs no candidacy in a term: looking is a
// pre-candidacy, and a leader learns its epoch once a quorum took it. Each
// epoch led is still one election won (SERVERS.md, "What the checker
// reads"), so two epochs led are two elections, not 0; the etcd leader of
// serverLed, whose candidacy was logged, counts once (TestServerRoles).
func TestServerLeaderWithoutCandidacy(t *testing.T) {
	c, role, decide := serverChecker(t)
	for p := range 3 {
		role(1, p, check.RolePreCandidate, 0)
	}
	role(5, 2, check.RoleLeader, 1)
	for p := range 3 {
		decide(6, p, 2)
	}
	// Member 2 crashes; the two others look again, and 1 leads epoch 2.
	c.Event(&trial.Event{At: 10 * ms, Kind: trial.EvCrash, P: 2})
	role(11, 0, check.RolePreCandidate, 1)
	role(11, 1, check.RolePreCandidate, 1)
	role(15, 1, check.RoleLeader, 2)
	decide(15, 1, 1)
	decide(16, 0, 1)
	v := c.Finish(&trial.Decisions{}, false, 20*ms)
	if d := v.Disruption; d.Elections != 2 {
		t.Errorf("elections %d; want 2 (epochs 1 and 2 led, no candidacy logged)", d.Elections)
	}
	if len(v.Terms) != 2 || v.Violations != 0 {
		t.Errorf("terms %+v, violations %v; want epochs 1 and 2, safe", v.Terms, v.Recorded)
	}
}

const ms = time.Millisecond

// serverLed is a checker watching three server members, and how a test
// logs a member's role and decision at a time in ms; member 0 has been
// elected leader of term 2 at 2 ms and every member decided it.
func serverLed(t *testing.T) (c *check.Checker, role func(at time.Duration, p int, r string, term int64), decide func(at time.Duration, p, leader int)) {
	t.Helper()
	c, role, decide = serverChecker(t)
	role(1, 0, check.RoleCandidate, 2)
	role(2, 0, check.RoleLeader, 2)
	for p := range 3 {
		decide(2, p, 0)
	}
	return c, role, decide
}

// serverChecker is a checker of a three-member server cluster, with role
// logging a member's role and term at a time in ms, and decide a member
// following a leader.
func serverChecker(t *testing.T) (c *check.Checker, role func(at time.Duration, p int, r string, term int64), decide func(at time.Duration, p, leader int)) {
	t.Helper()
	ranks := nodes.SmallRanks([]uint32{1, 2, 3})
	alg := &nodes.Algorithm{Name: "server", Quorum: &nodes.Quorum{}}
	c = check.New(ranks)
	if err := c.WatchQuorum(alg, nodes.Config{N: 3, T: time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	role = func(at time.Duration, p int, r string, term int64) {
		c.Event(&trial.Event{At: at * ms, Kind: trial.EvPhase, P: int32(p), Phase: check.ServerRole(r, term)})
	}
	decide = func(at time.Duration, p, leader int) {
		c.Event(&trial.Event{At: at * ms, Kind: trial.EvDecide, P: int32(p), Leader: ranks.At(leader)})
	}
	return c, role, decide
}
