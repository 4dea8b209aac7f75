//go:build linux

package system_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/system"
)

// waitFor reads observations until one satisfies ok, failing the test
// after 10 s.
func waitFor(t *testing.T, c *system.Cluster, what string, ok func(system.Observation) bool) system.Observation {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case o := <-c.Observations():
			if ok(o) {
				return o
			}
		case <-deadline:
			t.Fatalf("no %s within 10 s", what)
		}
	}
}

func closeClean(t *testing.T, c *system.Cluster) {
	t.Helper()
	members := c.Spec().Members
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	assertNothingLeft(t, members)
}

// A paused leader (SIGSTOP) is replaced; resumed, it learns the higher
// term and follows.
func TestPausedLeader(t *testing.T) {
	c, seen := start(t, "default")
	defer closeClean(t, c)
	old := leaderOf(seen, 3)
	c.Pause(old)
	next := waitFor(t, c, "new leader", func(o system.Observation) bool { return o.Role == system.Leader && o.Member != old })
	c.Resume(old)
	back := waitFor(t, c, "the resumed leader following", func(o system.Observation) bool {
		return o.Member == old && o.Role == system.Follower && o.Term >= next.Term
	})
	t.Logf("paused member %d replaced by %d at term %d; resumed, it follows at term %d", old, next.Member, next.Term, back.Term)
}

// A crashed member restarted on its data directory rejoins as a follower
// of the current leader.
func TestCrashRestartRejoins(t *testing.T) {
	c, seen := start(t, "default")
	defer closeClean(t, c)
	follower := (leaderOf(seen, 3) + 1) % 3
	c.Crash(follower)
	if err := c.Restart(follower); err != nil {
		t.Fatal(err)
	}
	o := waitFor(t, c, "the restarted member following a leader", func(o system.Observation) bool {
		return o.Member == follower && o.Leader >= 0 && o.Leader != follower
	})
	t.Logf("member %d restarted and follows %d at term %d", follower, o.Leader, o.Term)
}

// A leader cut off from both followers (a minority partition, both ways)
// is replaced by one of the majority; etcd's CheckQuorum makes the old
// leader step down on its own.
func TestMinorityPartition(t *testing.T) {
	c, seen := start(t, "default")
	defer closeClean(t, c)
	minorityPartition(t, c, seen)
}

// minorityPartition cuts the leader the cluster formed with (seen) off
// from both others and waits for a new leader and the old one stepping
// down.
func minorityPartition(t *testing.T, c *system.Cluster, seen []system.Observation) {
	t.Helper()
	old := leaderOf(seen, 3)
	for j := range 3 {
		if j != old {
			for _, l := range [][2]int{{old, j}, {j, old}} {
				if err := c.Loss(l[0], l[1], 100); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// The two come in either order: the old leader's lease may end
	// before or after the majority elects.
	var next system.Observation
	stepped := false
	waitFor(t, c, "a majority leader and the cut-off leader stepping down", func(o system.Observation) bool {
		if o.Role == system.Leader && o.Member != old {
			next = o
		}
		stepped = stepped || o.Member == old && o.Role == system.Follower
		return stepped && next.Role == system.Leader
	})
	t.Logf("cut-off leader %d replaced by %d at term %d and stepped down", old, next.Member, next.Term)
}

// A member that exits while the cluster forms (etcd refuses an election
// timeout under five heartbeats) fails the start at once as an
// infrastructure error, with its last log line, and leaves nothing.
func TestMemberFailingToStart(t *testing.T) {
	dir, err := os.MkdirTemp("", "electbench-system-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := system.Start(ctx, system.Etcd, system.Spec{N: 3, Params: map[string]int{"election-timeout": 100, "heartbeat-interval": 100}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err = system.WaitFormed(ctx, c, func(system.Observation) {})
	if !errors.Is(err, system.ErrStart) || !strings.Contains(err.Error(), "exited") || time.Since(began) > 10*time.Second {
		t.Errorf("WaitFormed after %v: %v; want ErrStart naming the member that exited, at once", time.Since(began), err)
	}
	closeClean(t, c)
}
