package hraft

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

func testSettings(t *testing.T, variant string) *settings {
	s, err := settingsOf(nodes.Config{Variant: variant, T: 5 * time.Millisecond,
		Params: nodes.Params{"heartbeat-timeout": "100ms", "election-timeout": "100ms", "leader-lease-timeout": "50ms", "commit-timeout": "5ms"}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Five servers elect one leader that all decide; when it crashes the
// others elect another within the follower loop's bound (docs/LIBRARIES.md:
// under 3HT + 4ET after the crash, the network here taking no time); the
// crashed server restarts remembering its term (the stable store) and
// follows the new leader; and once every library is stopped none of its
// goroutines is left (synctest's bubble would not end otherwise).
func TestElectFailoverRestart(t *testing.T) {
	for _, variant := range []string{"default", "no-prevote"} {
		t.Run(variant, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := testSettings(t, variant)
				c := nodetest.NewLibraries(t, 5)
				for p := range 5 {
					c.Start(p, &library{settings: s})
				}
				first := c.WaitLeader(t, -1, 2*time.Second)
				term := c.Library(first).(*library).raft.CurrentTerm()
				c.Stop(first)
				crashed := time.Now()
				second := c.WaitLeader(t, first, 3*s.heartbeat+4*s.election)
				if second == first || second < 0 {
					t.Fatalf("leader %d after %d crashed", second, first)
				}
				t.Logf("%s: failover %v", variant, time.Since(crashed))
				c.Start(first, &library{settings: s})
				if got := c.Library(first).(*library).raft.CurrentTerm(); got < term {
					t.Errorf("restarted with term %d, before its crash %d", got, term)
				}
				if l := c.WaitLeader(t, -1, 2*time.Second); l != second {
					t.Errorf("after the restart the leader is %d, not %d", l, second)
				}
				if sent := c.Sent(); sent[kindHeartbeat] == 0 || sent[kindVote] == 0 || (sent[kindPreVote] == 0) != (variant == "no-prevote") {
					t.Errorf("sent %v", sent)
				}
				for p := range 5 {
					c.Stop(p)
				}
				c.Wait()
			})
		})
	}
}

// The library's own validation is the user's bad input, at plan time.
func TestParams(t *testing.T) {
	for _, tc := range []struct {
		params  nodes.Params
		variant string
		want    string
	}{
		{nodes.Params{"leader-lease-timeout": "30T"}, "", "raft.ValidateConfig: LeaderLeaseTimeout (150ms) cannot be larger than heartbeat timeout (100ms)"},
		{nodes.Params{"election-timeout": "10T"}, "", "ElectionTimeout (50ms) must be equal or greater than Heartbeat Timeout (100ms)"},
		{nodes.Params{"heartbeat-timeout": "1ms", "leader-lease-timeout": "1ms", "election-timeout": "1ms"}, "", "HeartbeatTimeout is too low"},
		{nodes.Params{"heartbeat-timeout": "soon"}, "", "parameter heartbeat-timeout"},
		{nodes.Params{"log-level": "loud"}, "", "parameter log-level"},
		{nodes.Params{"tick": "1T"}, "", "tick"},
		{nil, "fast", `no variant "fast"`},
		{nodes.Params{"heartbeat-timeout": "500ms", "election-timeout": "1s", "log-level": "info"}, "no-prevote", ""},
	} {
		_, err := settingsOf(nodes.Config{Variant: tc.variant, Params: tc.params, T: 5 * time.Millisecond})
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %q: %v, want %q", tc.params, tc.variant, err, tc.want)
		}
	}
}
