//go:build linux

package system

import (
	"fmt"
	"net/netip"
	"testing"
)

// The lines etcd 3.4's raft logs of a member's leader (raft/node.go):
// elected, lost, and changed without a loss between (a follower whose
// next message is the new leader's), each read as the leader it names.
func TestEtcdObserveLeaderLines(t *testing.T) {
	spec := &Spec{N: 3}
	for i := range 3 {
		spec.Members = append(spec.Members, Member{Index: i, Addr: netip.AddrFrom4([4]byte{127, 100, 0, byte(i + 1)}), PeerPort: 2380 + i})
	}
	id := func(i int) string { return fmt.Sprintf("%x", etcdID(spec.Members[i])) }
	line := func(msg string) []byte {
		return fmt.Appendf(nil, `{"level":"info","ts":"2026-11-28T14:43:36.260Z","msg":%q}`, msg)
	}
	for _, c := range []struct {
		msg            string
		member, leader int
		term           uint64
	}{
		{"raft.node: " + id(0) + " elected leader " + id(1) + " at term 2", 0, 1, 2},
		{"raft.node: " + id(0) + " lost leader " + id(1) + " at term 5", 0, NoLeader, 5},
		{"raft.node: " + id(2) + " changed leader from " + id(1) + " to " + id(0) + " at term 12", 2, 0, 12},
		{id(1) + " became leader at term 7", 1, 1, 7},
		{id(1) + " became candidate at term 6", 1, LeaderUnchanged, 6},
	} {
		o, ok := etcdObserve(spec, line(c.msg))
		if !ok || o.Member != c.member || o.Leader != c.leader || o.Term != c.term {
			t.Errorf("%q: %+v, %v; want member %d, leader %d, term %d", c.msg, o, ok, c.member, c.leader, c.term)
		}
	}
	if _, ok := etcdObserve(spec, line("raft.node: "+id(0)+" elected leader 1234 at term 2")); ok {
		t.Error("a leader id of no member was read")
	}
}
