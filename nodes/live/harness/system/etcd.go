//go:build linux

package system

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Etcd is etcd 3.4 (Debian's etcd-server): CheckQuorum always on, PreVote
// the opt-in --pre-vote (variant "pre-vote"). Its parameters are its own
// flags in milliseconds: election-timeout (default 1000) and
// heartbeat-interval (default 100).
//
// Leadership is read from its zap log (--logger=zap), not from polling
// its status endpoint: raft logs every change of role and term, and every
// leader gained or lost, as it happens, stamped to the millisecond by the
// member itself, whereas a poll sees only the state at the instant it is
// answered — it misses the terms a member passed through between two
// polls (the inflated terms of a lossy member are the point of
// cloudflare-2020) and cannot be answered at all by a paused member.
var Etcd = &Server{
	Name:    "etcd-server",
	Binary:  "etcd",
	Package: "etcd-server",
	Args:    etcdArgs,
	// Every line names its member by id: the reader keeps nothing.
	Reader: func(c *Spec, _ int) func([]byte) (Observation, bool) {
		return func(line []byte) (Observation, bool) { return etcdObserve(c, line) }
	},
}

// etcdToken is the cluster token: with the peer URLs it fixes the members'
// ids (etcdID), so a log line naming an id names a member.
const etcdToken = "electbench"

// etcdPeerURL is the peer URL member m advertises, the one its peers dial:
// its proxy's when it has one (Spec.Delays). It listens on its own
// (etcdListenURL).
func etcdPeerURL(m Member) string { return fmt.Sprintf("http://%s:%d", m.Addr, m.PeerDial()) }

func etcdListenURL(m Member) string { return fmt.Sprintf("http://%s:%d", m.Addr, m.PeerPort) }

func etcdArgs(c *Spec, m Member) []string {
	initial := ""
	for i, o := range c.Members {
		if i > 0 {
			initial += ","
		}
		initial += fmt.Sprintf("m%d=%s", o.Index, etcdPeerURL(o))
	}
	client := fmt.Sprintf("http://%s:%d", m.Addr, m.ClientPort)
	args := []string{
		"--name", fmt.Sprintf("m%d", m.Index),
		"--data-dir", m.Dir,
		"--logger=zap", "--log-outputs=stderr",
		"--listen-peer-urls", etcdListenURL(m), "--initial-advertise-peer-urls", etcdPeerURL(m),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--initial-cluster", initial, "--initial-cluster-state", "new", "--initial-cluster-token", etcdToken,
	}
	if v, ok := c.Params["election-timeout"]; ok {
		args = append(args, "--election-timeout", strconv.Itoa(v))
	}
	if v, ok := c.Params["heartbeat-interval"]; ok {
		args = append(args, "--heartbeat-interval", strconv.Itoa(v))
	}
	if c.Variant == "pre-vote" {
		args = append(args, "--pre-vote")
	}
	return args
}

// etcdID is the member id etcd 3.4 gives a member of a new cluster: the
// first eight bytes, big-endian, of sha1(its peer URLs, sorted and joined,
// then the cluster token) (etcdserver/api/membership.NewMember).
func etcdID(m Member) uint64 {
	h := sha1.Sum([]byte(etcdPeerURL(m) + etcdToken))
	return binary.BigEndian.Uint64(h[:8])
}

var (
	// raft/raft.go: "<id> became <role> at term <t>"
	etcdBecame = regexp.MustCompile(`^([0-9a-f]+) became (follower|pre-candidate|candidate|leader) at term (\d+)$`)
	// raft/node.go: "raft.node: <id> elected leader <id> at term <t>",
	// "raft.node: <id> lost leader <id> at term <t>", and, for a member
	// that learns a new leader without having lost the old one first (a
	// follower whose next message is the new leader's), "raft.node: <id>
	// changed leader from <id> to <id> at term <t>"
	etcdLeader = regexp.MustCompile(`^raft\.node: ([0-9a-f]+) (?:(elected|lost) leader|changed leader from [0-9a-f]+ to) ([0-9a-f]+) at term (\d+)$`)
)

func etcdObserve(c *Spec, line []byte) (Observation, bool) {
	var l struct {
		TS  string `json:"ts"`
		Msg string `json:"msg"`
	}
	if json.Unmarshal(line, &l) != nil {
		return Observation{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, l.TS)
	if err != nil {
		return Observation{}, false
	}
	o := Observation{At: at, Leader: LeaderUnchanged}
	var self, term string
	if m := etcdBecame.FindStringSubmatch(l.Msg); m != nil {
		self, o.Role, term = m[1], Role(m[2]), m[3]
		if o.Role == Leader {
			o.Leader = -3 // itself, resolved below
		}
	} else if m := etcdLeader.FindStringSubmatch(l.Msg); m != nil {
		self, term = m[1], m[4]
		o.Leader = NoLeader
		if m[2] != "lost" {
			if o.Leader = etcdMember(c, m[3]); o.Leader < 0 {
				return Observation{}, false
			}
		}
	} else {
		return Observation{}, false
	}
	if o.Member = etcdMember(c, self); o.Member < 0 {
		return Observation{}, false
	}
	if o.Leader == -3 {
		o.Leader = o.Member
	}
	o.Term, _ = strconv.ParseUint(term, 10, 64)
	return o, true
}

// etcdMember is the index of the member with the hex id, or -1.
func etcdMember(c *Spec, hex string) int {
	id, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return -1
	}
	for _, m := range c.Members {
		if etcdID(m) == id {
			return m.Index
		}
	}
	return -1
}
