package quorum

import (
	"maps"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Golden message transcripts of quorum elections on five processes, ids
// 10..50 by position (testdata/*.txt; go test ./nodes/quorum -run Golden
// -rewrite regenerates them). Each test also checks what it pins from the
// network's own counts. Only the election timer the test fires by hand
// expires, so the transcripts do not depend on the random timeouts.

// sendTimes returns when each message of kind k was sent.
func sendTimes(n *net, k string) []time.Duration {
	var at []time.Duration
	for _, e := range n.Events() {
		if e.Kind == trial.EvSend && e.Msg.Kind.String() == k {
			at = append(at, e.At)
		}
	}
	return at
}

// ALGORITHMS.md, "`raft` — Raft's leader election (Ongaro & Ousterhout
// 2014)": one vote per term, a majority wins, and the leader sends
// heartbeats. Process 2 (id 30) stands in term 1 at 0; every vote is
// granted and back at 2T, where it leads from the second grant (three of
// five with its own); its heartbeats teach everyone the leader at 3T.
func TestGoldenRaftCampaign(t *testing.T) {
	n := five(t, "raft", nil)
	n.Fire(me, timerElection)
	n.RunUntil(4 * T)

	want := map[string]int{"REQUEST_VOTE": 4, "VOTE": 4, "HEARTBEAT": 4, "HEARTBEAT_ACK": 4}
	if got := n.SentByKind(); !maps.Equal(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	granted := 0
	for _, e := range n.Events() {
		if e.Kind == trial.EvRecv && e.Msg.Kind == kindVote && e.Msg.A == 1 && e.Msg.B == 1 {
			granted++
		}
	}
	if granted != 4 {
		t.Fatalf("%d votes granted in term 1, want 4", granted)
	}
	if hb := sendTimes(n, "HEARTBEAT"); hb[0] != 2*T {
		t.Fatalf("first heartbeat at %v, want 2T: the instant a majority's votes had arrived", hb[0])
	}
	if len(n.leaderOf) != 1 || n.leaderOf[1] != me {
		t.Fatalf("leaders by term %v, want process %d in term 1 only", n.leaderOf, me)
	}
	for p := range 5 {
		n.ExpectDecided(p, 30)
	}
	n.safe()
	n.Golden("raft-campaign")
}

// ALGORITHMS.md, "`chubby` — majority vote with a master lease": a
// candidate that wins a majority becomes master for a lease of length L,
// and renews by winning a majority again before expiry. Process 2 (id 30)
// wins at 2T; with the defaults (L = 40T, renew-margin 10T) it asks for
// renewal at 32T, the acks of a majority are back at 34T, and the renewed
// lease runs L from then: one lease from 2T to 74T, without a gap.
func TestGoldenChubbyLeaseRenewal(t *testing.T) {
	n := five(t, "chubby", nil)
	n.Fire(me, timerCandidacy)
	n.RunUntil(35 * T)

	want := map[string]int{"VOTE_REQUEST": 4, "VOTE": 4, "LEASE": 8, "RENEW": 4, "RENEW_ACK": 4}
	if got := n.SentByKind(); !maps.Equal(got, want) {
		t.Fatalf("sent %v, want %v", got, want)
	}
	if got := n.Fired(); !maps.Equal(got, map[string]int{"CANDIDACY": 1, "RENEW": 1}) {
		t.Fatalf("timers fired %v, want the candidacy and one renewal", got)
	}
	won, margin := 2*T, 10*T
	renewals := sendTimes(n, "RENEW")
	if renewals[0] != won+n.lease-margin {
		t.Fatalf("renewal asked at %v, want L − margin after winning (%v)", renewals[0], won+n.lease-margin)
	}
	leases := sendTimes(n, "LEASE")
	if leases[0] != won || leases[4] != 34*T || leases[4] >= won+n.lease {
		t.Fatalf("leases sent at %v: want 4 at 2T, then 4 at 34T, before the first expired", leases)
	}
	n.ExpectArmed(me, timerLeaseEnd, 34*T+n.lease)
	if got := n.leases[me]; got != [2]time.Duration{won, 34*T + n.lease} || len(n.leases) != 1 {
		t.Fatalf("lease claims %v, want process %d's alone, from 2T to 74T", n.leases, me)
	}
	for p := range 5 {
		n.ExpectDecided(p, 30)
	}
	n.safe()
	n.Golden("chubby-lease-renewal")
}
