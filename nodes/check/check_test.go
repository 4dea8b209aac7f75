package check

import (
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// Two-phase bully's invariant: any two processes in Normal agree on the
// leader (ALGORITHMS.md, "bully with announce: two-phase").
func TestCheckerNormalInvariant(t *testing.T) {
	ranks := []nodes.Rank{nodes.RankOf(1), nodes.RankOf(2), nodes.RankOf(3)}
	c := New(nodes.RanksOf(ranks))
	c.Phase(0, 0, nodes.PhaseNormal)
	c.Phase(0, 1, nodes.PhaseNormal)
	c.Decided(1, 0, nodes.RankOf(3))
	c.Decided(1, 1, nodes.RankOf(3))
	if c.count != 0 {
		t.Fatalf("agreeing Normal processes flagged: %v", c.list)
	}
	c.Phase(2, 2, "Election")
	c.Decided(3, 2, nodes.RankOf(2)) // wrong leader, but not in Normal
	n := c.count
	c.Phase(3, 2, nodes.PhaseNormal)
	if c.count != n+1 || c.list[len(c.list)-1].Kind != "normal-disagreement" {
		t.Fatalf("two Normal processes with different leaders not flagged: %v", c.list)
	}
}

func TestCheckerVerdicts(t *testing.T) {
	ranks := []nodes.Rank{nodes.RankOf(2), nodes.RankOf(5), nodes.RankOf(3)}
	dec := func(ids ...uint64) *trial.Decisions {
		d := trial.NewDecisions(len(ids))
		for i, id := range ids {
			if id != 0 {
				leader := nodes.RankOf(id)
				d.Decided(i, &leader, time.Duration(i)*time.Millisecond)
			}
		}
		return &d
	}
	// All decided the highest: correct.
	c := New(nodes.RanksOf(ranks))
	v := c.Finish(dec(5, 5, 5), true, time.Second)
	if !v.Correct || !v.Live || v.Violations != 0 || v.Leader != "5" || v.DecidedAt != 2*time.Millisecond {
		t.Errorf("all agree: %+v", v)
	}
	// One process decides a lower leader: a safety violation, not correct.
	c = New(nodes.RanksOf(ranks))
	c.Decided(time.Millisecond, 0, nodes.RankOf(3))
	v = c.Finish(dec(3, 5, 5), true, time.Second)
	if v.Correct || v.Violations != 2 || v.Leader != "" || !strings.Contains(v.Recorded[0].String(), "decided 3 while 5") {
		t.Errorf("wrong leader: %+v", v)
	}
	// Someone never decided: not live, not correct.
	c = New(nodes.RanksOf(ranks))
	v = c.Finish(dec(5, 0, 5), true, time.Second)
	if v.Correct || v.Live || v.Violations != 0 {
		t.Errorf("undecided: %+v", v)
	}
	// The highest crashed: the next one is the right leader.
	c = New(nodes.RanksOf(ranks))
	c.Crashed(0, 1)
	v = c.Finish(dec(3, 0, 3), true, time.Second)
	if !v.Correct || !v.Live {
		t.Errorf("crashed highest: %+v", v)
	}
	// A run stopped at its deadline is not live even if everyone decided.
	c = New(nodes.RanksOf(ranks))
	if v = c.Finish(dec(5, 5, 5), false, time.Second); v.Live || !v.Correct {
		t.Errorf("deadline: %+v", v)
	}
}

// The checker compares a leader with the highest live rank once, and
// remembers it as rightful only until the highest changes: a leader that
// was right while the highest process was down is wrong once it restarts.
func TestCheckerRightfulLeaderForgottenOnRestart(t *testing.T) {
	ranks := []nodes.Rank{nodes.RankOf(1), nodes.RankOf(2), nodes.RankOf(3)}
	c := New(nodes.RanksOf(ranks))
	c.Crashed(0, 2)
	c.Decided(1, 0, nodes.RankOf(2))
	c.Decided(1, 1, nodes.RankOf(2))
	if c.count != 0 {
		t.Fatalf("the highest live leader flagged: %v", c.list)
	}
	c.Restarted(2, 2)
	c.Decided(3, 0, nodes.RankOf(2))
	if c.count != 1 || c.list[0].Kind != "wrong-leader" {
		t.Fatalf("a leader below the restarted highest not flagged: %v", c.list)
	}
}

// Believers are counted by leader: a process that changes its mind leaves
// the old leader's believers, so once all agree there is one leader
// believed and no new violation.
func TestCheckerBelieversFollowChanges(t *testing.T) {
	ranks := []nodes.Rank{nodes.RankOf(1), nodes.RankOf(2), nodes.RankOf(3)}
	c := New(nodes.RanksOf(ranks))
	c.Decided(1, 0, nodes.RankOf(2)) // wrong-leader
	c.Decided(1, 1, nodes.RankOf(3)) // disagreement: 2 and 3 believed
	n := c.count
	c.Decided(2, 0, nodes.RankOf(3)) // 2 loses its only believer
	c.Decided(2, 2, nodes.RankOf(3))
	if n != 2 || c.count != n || c.believed != 1 || c.believersOf(nodes.RankOf(3)) != 3 || c.believersOf(nodes.RankOf(2)) != 0 {
		t.Fatalf("after agreeing: count %d (was %d), believed %d, believers of 3: %d, of 2: %d",
			c.count, n, c.believed, c.believersOf(nodes.RankOf(3)), c.believersOf(nodes.RankOf(2)))
	}
}

// A runtime's decisions reach the checker as events, read in place; they
// judge as Decided does.
func TestCheckerDecisionEvents(t *testing.T) {
	ranks := []nodes.Rank{nodes.RankOf(1), nodes.RankOf(2), nodes.RankOf(3)}
	c := New(nodes.RanksOf(ranks))
	e := trial.Event{At: 5, Kind: trial.EvDecide, P: 0, Leader: nodes.RankOf(2)}
	c.Event(&e)
	e.P, e.Leader = 1, nodes.RankOf(3)
	c.Event(&e)
	if c.count != 2 || c.list[0].Kind != "wrong-leader" || c.list[0].Detail != "process 0 (id 1) decided 2 while 3 is alive" ||
		c.list[1].Kind != "disagreement" || c.list[1].Detail != "process 1 decided 3 while live processes believe 2" {
		t.Fatalf("violations: %v", c.list)
	}
	if c.beliefOf(0) != nodes.RankOf(2) || c.beliefOf(1) != nodes.RankOf(3) {
		t.Fatalf("beliefs %v, %v", c.beliefOf(0), c.beliefOf(1))
	}
}
