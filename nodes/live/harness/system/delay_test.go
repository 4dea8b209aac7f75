//go:build linux

package system_test

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/system"
)

// proxyDelay is what the tests' inbound proxies add each way: large
// against the log's millisecond and a loaded host's scheduling, small
// against the election timeout.
const proxyDelay = 100 * time.Millisecond

// Behind inbound proxies (Spec.Delays) every connection between two
// members is dialed to one of them and crosses its proxy, delayed both
// ways: after the leader's crash, the new leader's vote round trip — its
// "became candidate" to its "became leader", both stamped by itself —
// takes at least twice the delay (the request to the other survivor and
// its answer each cross a proxy once). Without the proxies it takes a
// few milliseconds.
func TestInboundDelayVoteRoundTrip(t *testing.T) {
	c, seen := startDelayed(t, "default", proxyDelay)
	defer closeClean(t, c)
	old, _, _ := crashTheLeader(c, seen)
	var campaigned system.Observation
	won := waitFor(t, c, "a new leader", func(o system.Observation) bool {
		if o.Role == system.Candidate && o.Member != old {
			campaigned = o
		}
		return o.Role == system.Leader && o.Member != old
	})
	if campaigned.Member != won.Member || campaigned.Term != won.Term {
		t.Fatalf("leader %d of term %d; its candidacy not seen (last: member %d, term %d)", won.Member, won.Term, campaigned.Member, campaigned.Term)
	}
	took := won.At.Sub(campaigned.At)
	t.Logf("member %d: candidate to leader of term %d in %v, each way delayed %v", won.Member, won.Term, took, proxyDelay)
	if lo := 2*proxyDelay - time.Millisecond; took < lo {
		t.Errorf("candidate to leader in %v; want at least %v (a round trip through a proxy)", took, lo)
	}
}

// The cuts of netcut still cut behind the proxies: a proxied
// connection's bytes between two members still travel between their two
// addresses (each proxy listens on its member's), so the leader cut off
// from both others is replaced, and it steps down.
func TestInboundDelayMinorityPartition(t *testing.T) {
	c, seen := startDelayed(t, "default", proxyDelay)
	defer closeClean(t, c)
	minorityPartition(t, c, seen)
}
