//go:build linux

package system

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
)

// The lines of ZooKeeper 3.8.0 (as SLF4J simple writes them, copied from
// a run) that say when a server's part in Zab changes: LOOKING drops its
// leader and campaigns; a follower names its leader as it connects and
// follows it once synchronised (broadcast); a leader leads the epoch of
// its zxid once a quorum supports it. FOLLOWING and LEADING, the vote's
// outcome, say nothing yet.
func TestZooKeeperReaderLines(t *testing.T) {
	spec := &Spec{N: 3}
	for i := range 3 {
		spec.Members = append(spec.Members, Member{Index: i, Addr: netip.AddrFrom4([4]byte{127, 100, 0, byte(i + 1)}), PeerPort: 2888 + i})
	}
	line := func(class, msg string) []byte {
		return fmt.Appendf(nil, "2026-11-28T16:54:30.441Z [QuorumPeer[myid=1](plain=127.100.0.1:2181)(secure=disabled)] INFO org.apache.zookeeper.server.quorum.%s - %s", class, msg)
	}
	follower := zkReader(spec, 0)
	for _, c := range []struct {
		class, msg string
		ok         bool
		role       Role
		leader     int
	}{
		{"QuorumPeer", "LOOKING", true, PreCandidate, NoLeader},
		{"QuorumPeer", "FOLLOWING", false, "", 0},
		{"Learner", "Successfully connected to leader, using address: /127.100.0.3:2890", false, "", 0},
		{"QuorumPeer", "Peer state changed: following - discovery", false, "", 0},
		{"QuorumPeer", "Peer state changed: following - broadcast", true, "", 2},
	} {
		o, ok := follower(line(c.class, c.msg))
		if ok != c.ok || ok && (o.Member != 0 || o.Role != c.role || o.Leader != c.leader) {
			t.Errorf("%q: %+v, %v; want %v, role %q, leader %d", c.msg, o, ok, c.ok, c.role, c.leader)
		}
	}
	leader := zkReader(spec, 2)
	if _, ok := leader(line("QuorumPeer", "LEADING")); ok {
		t.Error("LEADING, the vote's outcome, was read as leadership")
	}
	o, ok := leader(line("Leader", "Have quorum of supporters, sids: [[1, 3]]; starting up and setting last processed zxid: 0x300000000"))
	if !ok || o.Role != Leader || o.Leader != 2 || o.Term != 3 {
		t.Errorf("a quorum of supporters: %+v, %v; want leader 2 of epoch 3", o, ok)
	}
	if o, ok := leader(line("QuorumPeer", "LOOKING")); !ok || o.Term != 3 || o.Leader != NoLeader {
		t.Errorf("LOOKING after leading epoch 3: %+v, %v; want no leader, epoch 3 kept", o, ok)
	}
	// Behind inbound proxies (Spec.Delays) a follower connects to its
	// leader's proxy, which names the leader as well.
	proxied := &Spec{N: 3, Members: slices.Clone(spec.Members)}
	proxied.Members[2].PeerVia = 3890
	behind := zkReader(proxied, 0)
	behind(line("Learner", "Successfully connected to leader, using address: /127.100.0.3:3890"))
	if o, ok := behind(line("QuorumPeer", "Peer state changed: following - broadcast")); !ok || o.Leader != 2 {
		t.Errorf("following the leader's proxy: %+v, %v; want leader 2", o, ok)
	}
	stray := zkReader(spec, 1)
	stray(line("Learner", "Successfully connected to leader, using address: /127.100.0.9:2890"))
	if _, ok := stray(line("QuorumPeer", "Peer state changed: following - broadcast")); ok {
		t.Error("a leader address of no member was followed")
	}
}

// FuzzZooKeeperReader: any line, in any order, reads without a panic, and
// an observation names a member or no leader.
func FuzzZooKeeperReader(f *testing.F) {
	f.Add([]byte("2026-11-28T16:54:30.441Z [x] INFO org.apache.zookeeper.server.quorum.Leader - Have quorum of supporters, sids: [[1, 3]]; starting up and setting last processed zxid: 0xffffffffffffffffff"))
	f.Add([]byte("2026-11-28T16:54:30.441Z [x] INFO org.apache.zookeeper.server.quorum.Learner - Successfully connected to leader, using address: /127.100.0.1:99999"))
	spec := &Spec{N: 1, Members: []Member{{Addr: netip.AddrFrom4([4]byte{127, 100, 0, 1}), PeerPort: 2888}}}
	f.Fuzz(func(t *testing.T, b []byte) {
		read := zkReader(spec, 0)
		for range 2 {
			if o, ok := read(b); ok && (o.Leader < LeaderUnchanged || o.Leader >= spec.N) {
				t.Fatalf("%q: leader %d", b, o.Leader)
			}
		}
	})
}

// A server listens on its quorum port only while it leads: the line that
// follows the Leader's making opens its proxy, LOOKING closes it, and no
// other line says anything of it.
func TestZooKeeperListens(t *testing.T) {
	line := func(class, msg string) []byte {
		return fmt.Appendf(nil, "2026-11-28T20:08:26.146Z [QuorumPeer[myid=3](plain=127.0.0.1:22183)(secure=disabled)] INFO org.apache.zookeeper.server.quorum.%s - %s", class, msg)
	}
	for _, c := range []struct {
		class, msg string
		open, ok   bool
	}{
		{"Leader", "LEADING - LEADER ELECTION TOOK - 215 MS", true, true},
		{"QuorumPeer", "LOOKING", false, true},
		{"QuorumPeer", "LEADING", false, false},
		{"Learner", "FOLLOWING - LEADER ELECTION TOOK - 140 MS", false, false},
		{"Leader", "Have quorum of supporters, sids: [[1, 3]]; starting up and setting last processed zxid: 0x200000000", false, false},
	} {
		if open, ok := zkListens(line(c.class, c.msg)); open != c.open || ok != c.ok {
			t.Errorf("%s %q: open %v, %v; want %v, %v", c.class, c.msg, open, ok, c.open, c.ok)
		}
	}
}
