package quorum

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/quorum/tally"
)

// Raft's kinds (doc.go lists the fields each uses). VOTE is shared by name
// with chubby, where it means the same: a vote for the receiver in epoch A.
var (
	kindRequestVote  = nodes.RegisterKind("REQUEST_VOTE", nodes.ElectionClass)
	kindVote         = nodes.RegisterKind("VOTE", nodes.ElectionClass)
	kindHeartbeat    = nodes.RegisterKind("HEARTBEAT", nodes.MaintenanceClass)
	kindHeartbeatAck = nodes.RegisterKind("HEARTBEAT_ACK", nodes.MaintenanceClass)

	// A follower's election timeout starts an election; the leader's
	// heartbeat tick is maintenance, counted by kind only.
	timerElection  = nodes.RegisterTimer("ELECTION_TIMEOUT", nodes.ElectionClass)
	timerHeartbeat = nodes.RegisterTimer("HEARTBEAT_TICK", nodes.MaintenanceClass)
	// PERSIST is the end of a stable-storage write (the persist
	// parameter): what waited for it leaves. Not a timeout of the election.
	timerPersist = nodes.RegisterTimer("PERSIST", nodes.MaintenanceClass)
)

// heartbeatDefault is the heartbeat parameter's default, a third of tmin.
const heartbeatDefault = "tmin/3"

var raftParams = []nodes.Param{
	{Name: "tmin", Default: "20T", Summary: "shortest election timeout (duration; Raft's 150 ms at T = 7.5 ms)"},
	{Name: "tmax", Default: "40T", Summary: "longest election timeout; each timeout is drawn uniformly from [tmin, tmax] (duration)"},
	{Name: "heartbeat", Default: heartbeatDefault, Summary: "interval between a leader's heartbeats (duration, or tmin/K; default tmin/3)"},
	{Name: "persist", Default: "0", Summary: "time to write the term and vote to stable storage before a VOTE leaves (Figure 2: \"updated on stable storage before responding to RPCs\"; duration; 0: at once)"},
	{Name: "amnesia", Default: "false", Summary: "a restart forgets the term, the vote and the log, as a server without durable storage does (the hazard Figure 2's rule prevents: a restarted server may vote twice in a term); false: they are kept on the runtime's stable store"},
	{Name: "logs", Default: "0", Summary: "each server's last-log index is drawn per trial uniformly from 1..logs, and a vote needs the candidate's log at least as up-to-date (Raft §5.4.1); 0: no log, any candidate may win"},
}

// maxLogs bounds the logs parameter (a last-log index, not a real log).
const maxLogs = 1 << 40

func init() {
	nodes.Register(raftAlgorithm("raft",
		"Raft's leader election (Ongaro & Ousterhout 2014): terms, one vote per term, randomized timeouts, heartbeats; no log", false))
}

// RaftWithoutVoteCheck is the name of raft with its up-to-date vote check
// removed (RegisterRaftWithoutVoteCheck).
const RaftWithoutVoteCheck = "raft-no-vote-check"

var registerPlanted sync.Once

// RegisterRaftWithoutVoteCheck registers raft whose voters grant a vote
// without Figure 2's "candidate's log is at least as up-to-date" clause: a
// bug planted for the tests of hunt and shrink (issue 38), which call it
// before they run it; electbench itself never does, so no user sees it.
// With the logs parameter it elects a server missing committed entries,
// which the checker reports as leader-completeness. Calling it again does
// nothing.
func RegisterRaftWithoutVoteCheck() {
	registerPlanted.Do(func() {
		nodes.Register(raftAlgorithm(RaftWithoutVoteCheck,
			"raft whose votes skip the up-to-date check (a planted bug, for tests)", true))
	})
}

// raftAlgorithm is raft registered as name; skipUpToDate removes the
// up-to-date clause of the vote rule.
func raftAlgorithm(name, summary string, skipUpToDate bool) nodes.Algorithm {
	return nodes.Algorithm{
		Name:      name,
		Family:    "quorum",
		Summary:   summary,
		Topology:  nodes.Complete,
		StartsAll: true,
		Params:    raftParams,
		New: func(cfg nodes.Config) (func() nodes.Machine, error) {
			shared, err := raftTimings.get(cfg)
			if err != nil {
				return nil, err
			}
			tm := *shared // the memo's is shared: the planted bug is this registration's
			tm.skipUpToDate = skipUpToDate
			machines := newChunk[raft](cfg.N)
			return func() nodes.Machine {
				r := machines.take()
				r.raftTiming = &tm
				return r
			}, nil
		},
		Quorum: &nodes.Quorum{Ballot: kindRequestVote, Grant: kindVote, Leader: kindHeartbeat,
			Steady:    timing(raftTimings.get, func(tm *raftTiming, _ time.Duration) time.Duration { return tm.heartbeat }),
			Heartbeat: timing(raftTimings.get, func(tm *raftTiming, _ time.Duration) time.Duration { return tm.heartbeat }),
			Settle:    timing(raftTimings.get, (*raftTiming).settle)},
	}
}

type raftTiming struct {
	tmin, tmax, heartbeat time.Duration
	persist               time.Duration // a VOTE leaves this long after its decision; 0: at once
	logs                  int64         // last-log indexes are drawn from 1..logs; 0: no log
	amnesia               bool          // a restart forgets what save keeps
	skipUpToDate          bool          // votes skip the up-to-date check: a planted bug (RegisterRaftWithoutVoteCheck)
}

// settle is raft's settling window (nodes.Quorum.Settle). A follower hears
// its leader's heartbeats at most heartbeat + D apart, so it never times out
// when that is less than tmin. An election timer lasts at most tmax, and a
// VOTE leaves at most D + persist after the REQUEST_VOTE it answers.
func (tm *raftTiming) settle(d time.Duration) time.Duration {
	if tm.heartbeat+d >= tm.tmin {
		return 0
	}
	return tm.tmax + tm.persist + tm.heartbeat + 2*d
}

// raftTimings is raftTimingOf for the last configuration (memo).
var raftTimings = memo[raftTiming]{of: raftTimingOf}

func raftTimingOf(cfg nodes.Config) (*raftTiming, error) {
	if _, err := nodes.CheckVariant("raft", cfg.Variant, "default"); err != nil {
		return nil, err
	}
	if err := nodes.CheckParams("raft", cfg.Params, raftParams); err != nil {
		return nil, err
	}
	tm := new(raftTiming)
	if err := durations(cfg, raftParams, map[string]*time.Duration{"tmin": &tm.tmin, "tmax": &tm.tmax}); err != nil {
		return nil, err
	}
	if tm.tmax < tm.tmin {
		return nil, fmt.Errorf("parameter tmax: %v is below tmin %v", tm.tmax, tm.tmin)
	}
	share := heartbeatDefault
	tm.heartbeat = tm.tmin / 3
	if h, ok := cfg.Params["heartbeat"]; ok {
		// tmin/K, a share of tmin (the default tmin/3; Figure 16's tmin/2),
		// or a duration.
		if k, ok := strings.CutPrefix(strings.TrimSpace(h), "tmin/"); ok {
			div, err := strconv.Atoi(k)
			if err != nil || div < 1 {
				return nil, fmt.Errorf("parameter heartbeat: %q is not tmin/K with a whole number K ≥ 1", h)
			}
			tm.heartbeat, share = tm.tmin/time.Duration(div), strings.TrimSpace(h)
		} else if err := durations(cfg, raftParams, map[string]*time.Duration{"heartbeat": &tm.heartbeat}); err != nil {
			return nil, err
		}
	}
	if tm.heartbeat <= 0 {
		return nil, fmt.Errorf("parameter heartbeat: %s = %v is not positive", share, tm.heartbeat)
	}
	if _, ok := cfg.Params["persist"]; ok {
		d, err := cfg.Duration("persist", "0")
		if err != nil {
			return nil, err
		}
		if d < 0 {
			return nil, fmt.Errorf("parameter persist: %v is negative", d)
		}
		tm.persist = d
	}
	if v, ok := cfg.Params["logs"]; ok {
		k, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || k < 0 || k > maxLogs {
			return nil, fmt.Errorf("parameter logs: %q is not a whole number of entries in 0..%d", v, int64(maxLogs))
		}
		tm.logs = k
	}
	if v, ok := cfg.Params["amnesia"]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("parameter amnesia: %q is not true or false", v)
		}
		tm.amnesia = b
	}
	return tm, nil
}

// role is where a raft process stands.
type role uint8

const (
	follower role = iota
	candidate
	leader
)

func (r role) String() string {
	switch r {
	case follower:
		return "follower"
	case candidate:
		return "candidate"
	case leader:
		return "leader"
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

// raft is one process of `raft` (ALGORITHMS.md, "raft"). As in etcd-io/raft,
// the role decides which function handles a message (step); the checks every
// role shares — the sender's identity, a higher term, a vote request, a stale
// heartbeat — run once before dispatch.
type raft struct {
	nodes.Group
	*raftTiming
	role     role
	step     func(r *raft, env nodes.Env, from int, m nodes.Message)
	term     int64
	votedFor int // index voted for in term; -1 for nobody yet
	// lastIndex is the index of this server's last log entry, drawn at
	// start when the logs parameter is set (0 otherwise). The drawn logs
	// model servers that received different amounts of the old leader's
	// replication (the paper's Figure 16): every entry is of the same term,
	// so Raft's up-to-date comparison reduces to the index.
	lastIndex int64
	// unsent are VOTEs waiting for their stable-storage write (persist),
	// in the order they were decided; PERSIST is armed for the first.
	unsent   []pendingVote
	believed nodes.Rank // the leader this process last decided; zero before any
	votes    tally.Tally
	// stable is scratch for the stable state save writes: in the
	// machine, as a slice grown by the appends it was an allocation of
	// most machines of a trial (issue 42).
	stable [1 + 3*binary.MaxVarintLen64]byte
}

func (r *raft) Start(env nodes.Env) {
	r.Init(env, "raft")
	r.votedFor = -1
	if !r.restore(env) && r.logs > 0 {
		r.lastIndex = 1 + env.Rand().Int64N(r.logs)
	}
	r.becomeFollower(env, r.term)
	r.resetElectionTimer(env)
}

// Stable state: "updated on stable storage before responding to RPCs"
// (Figure 2): currentTerm, votedFor and the log (here its last index).
// Where the runtime keeps a stable store (nodes.StableStore) every change
// is saved when it is made, so a restarted process comes back in its term
// with its vote and cannot vote twice in a term; persist delays only the
// VOTE that depends on the write. Without a store, or with amnesia, a
// restart is a fresh machine, and may vote twice in a term.
const raftStableVersion = 1

// save stores the term, the vote and the log's last index.
func (r *raft) save(env nodes.Env) {
	if st, ok := env.(nodes.StableStore); ok && !r.amnesia {
		// Encoded into the machine's scratch buffer (SaveStable does not
		// keep it): a fresh one grown by the appends was three allocations
		// of every vote and new term (issue 42).
		b := append(r.stable[:0], raftStableVersion)
		b = binary.AppendVarint(b, r.term)
		b = binary.AppendVarint(b, int64(r.votedFor))
		st.SaveStable(binary.AppendVarint(b, r.lastIndex))
	}
}

// restore reads what save stored, if anything; it panics on bytes save
// cannot have written (the runtime makes that the trial's error).
func (r *raft) restore(env nodes.Env) bool {
	st, ok := env.(nodes.StableStore)
	if !ok || r.amnesia {
		return false
	}
	b := st.LoadStable()
	if b == nil {
		return false
	}
	var v [3]int64
	rest, ok := bytes.CutPrefix(b, []byte{raftStableVersion})
	for i := range v {
		n := 0
		if ok {
			v[i], n = binary.Varint(rest)
			ok = n > 0
			rest = rest[max(n, 0):]
		}
	}
	if !ok || len(rest) != 0 || v[1] < -1 || v[1] >= int64(r.N()) {
		panic(fmt.Sprintf("raft: stable state of %d bytes is not one this version saved", len(b)))
	}
	r.term, r.votedFor, r.lastIndex = v[0], int(v[1]), v[2]
	return true
}

// LastIndex is the index of this server's last log entry
// (nodes.LogHolder): the checker judges Leader Completeness by it.
func (r *raft) LastIndex() int64 { return r.lastIndex }

// Initiate asks for an election now: a follower or candidate stands at once,
// as if its election timeout had expired. (The workload never asks: every
// process starts with its timer running.)
func (r *raft) Initiate(env nodes.Env) {
	if r.role != leader {
		r.campaign(env)
	}
}

// Suspect is ignored: Raft's failure detector is its election timeout,
// reset by the leader's heartbeats.
func (r *raft) Suspect(nodes.Env, nodes.PeerID) {}

func (r *raft) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	i, ok := r.IndexOf(m.Rank, from)
	if !ok || i == r.Self {
		return // a message that lies about its sender
	}
	// "If RPC request or response contains term T > currentTerm: set
	// currentTerm = T, convert to follower" (Figure 2, all servers).
	if m.A > r.term {
		r.becomeFollower(env, m.A)
	}
	switch m.Kind {
	case kindRequestVote:
		r.requestVote(env, i, m)
	case kindHeartbeat:
		if m.A < r.term {
			// A stale leader: the reply carries the newer term, which makes
			// it step down (Raft's AppendEntries reply).
			env.Send(from, r.msg(kindHeartbeatAck))
			return
		}
		r.step(r, env, i, m)
	case kindVote:
		if m.A == r.term {
			r.step(r, env, i, m)
		}
	}
	// HEARTBEAT_ACK matters only for its term, handled above.
}

func (r *raft) Timeout(env nodes.Env, t nodes.TimerID) {
	switch {
	case t == timerElection && r.role != leader:
		// "If election timeout elapses without receiving AppendEntries RPC
		// from current leader or granting vote to candidate: convert to
		// candidate"; a candidate whose election timed out starts a new one.
		r.campaign(env)
	case t == timerHeartbeat && r.role == leader:
		r.Broadcast(env, r.msg(kindHeartbeat))
		env.SetTimer(r.heartbeat, timerHeartbeat)
	case t == timerPersist:
		r.persisted(env)
	}
}

func (r *raft) msg(k nodes.Kind) nodes.Message {
	return nodes.Message{Kind: k, Rank: r.Peers[r.Self].Rank, A: r.term}
}

// requestVote: one vote per term, first come first served; without logs
// any candidate whose term is at least the voter's may have it
// (ALGORITHMS.md). With logs, "if votedFor is null or candidateId, and
// candidate's log is at least as up-to-date as receiver's log, grant vote"
// (Figure 2); REQUEST_VOTE carries the candidate's last-log index in B. The
// term check above has already brought this process to the candidate's
// term if it was behind. Granting a vote resets the election timer; a
// refusal does not.
func (r *raft) requestVote(env nodes.Env, from int, m nodes.Message) {
	grant := m.A == r.term && (r.votedFor < 0 || r.votedFor == from) && (r.skipUpToDate || upToDate(m.B, r.lastIndex))
	reply := r.msg(kindVote)
	if grant {
		r.votedFor = from
		r.save(env)
		r.resetElectionTimer(env)
		reply.B = 1
	}
	r.reply(env, from, reply)
}

// pendingVote is a VOTE decided at `at` whose write to stable storage is
// under way.
type pendingVote struct {
	at time.Duration
	to int
	m  nodes.Message
}

// reply sends a VOTE once the term and vote it depends on are on stable
// storage: at once when persist is 0, else persist later, in order. A
// process that crashes meanwhile never sends it.
func (r *raft) reply(env nodes.Env, to int, m nodes.Message) {
	if r.persist == 0 {
		env.Send(r.Peers[to].ID, m)
		return
	}
	r.unsent = append(r.unsent, pendingVote{at: env.Now(), to: to, m: m})
	if len(r.unsent) == 1 {
		env.SetTimer(r.persist, timerPersist)
	}
}

// persisted sends the VOTEs whose write has ended and arms PERSIST for the
// next one.
func (r *raft) persisted(env nodes.Env) {
	now := env.Now()
	i := 0
	for ; i < len(r.unsent) && r.unsent[i].at+r.persist <= now; i++ {
		env.Send(r.Peers[r.unsent[i].to].ID, r.unsent[i].m)
	}
	r.unsent = r.unsent[i:]
	if len(r.unsent) > 0 {
		env.SetTimer(r.unsent[0].at+r.persist-now, timerPersist)
	}
}

func (r *raft) becomeFollower(env nodes.Env, term int64) {
	if term > r.term {
		r.term, r.votedFor = term, -1
		r.save(env)
	}
	if r.role == leader {
		env.CancelTimer(timerHeartbeat)
		r.resetElectionTimer(env)
	}
	r.role, r.step = follower, stepFollower
}

// campaign: "increment currentTerm, vote for self, reset election timer,
// send RequestVote RPCs to all other servers".
func (r *raft) campaign(env nodes.Env) {
	r.term++
	r.votedFor = r.Self
	r.save(env)
	r.role, r.step = candidate, stepCandidate
	r.votes.Reset(r.N())
	r.votes.Record(r.Self, true)
	r.resetElectionTimer(env)
	ballot := r.msg(kindRequestVote)
	ballot.B = r.lastIndex
	r.Broadcast(env, ballot)
	if r.votes.Result() == tally.Won { // a cluster of one
		r.becomeLeader(env)
	}
}

// becomeLeader: "send initial empty AppendEntries RPCs (heartbeat) to each
// server; repeat during idle periods to prevent election timeouts".
func (r *raft) becomeLeader(env nodes.Env) {
	r.role, r.step = leader, stepLeader
	env.CancelTimer(timerElection)
	r.learn(env, r.Self)
	r.Broadcast(env, r.msg(kindHeartbeat))
	env.SetTimer(r.heartbeat, timerHeartbeat)
}

// learn records the leader of the current term, deciding only when the
// belief changes: a re-elected leader, or its next heartbeat, teaches
// nothing new.
func (r *raft) learn(env nodes.Env, i int) {
	if l := r.Peers[i].Rank; l != r.believed {
		r.believed = l
		env.Decide(l)
	}
}

// upToDate is Raft's §5.4.1 rule for logs whose entries are all of one
// term: the candidate's log is at least as up-to-date as the voter's when
// its last index is at least the voter's. (Without logs both are 0.)
func upToDate(candidateLast, voterLast int64) bool { return candidateLast >= voterLast }

func (r *raft) resetElectionTimer(env nodes.Env) {
	env.SetTimer(uniform(env, r.tmin, r.tmax), timerElection)
}

// stepFollower handles HEARTBEAT of the current term (VOTE of the current
// term can only be a late answer to a candidacy already abandoned).
func stepFollower(r *raft, env nodes.Env, from int, m nodes.Message) {
	if m.Kind == kindHeartbeat {
		r.heartbeatFrom(env, from)
	}
}

// stepCandidate counts votes; a heartbeat of its own term means another
// candidate won it: "if AppendEntries RPC received from new leader: convert
// to follower".
func stepCandidate(r *raft, env nodes.Env, from int, m nodes.Message) {
	switch m.Kind {
	case kindVote:
		r.votes.Record(from, m.B != 0)
		if r.votes.Result() == tally.Won {
			r.becomeLeader(env)
		}
	case kindHeartbeat:
		r.becomeFollower(env, m.A)
		r.heartbeatFrom(env, from)
	}
}

// stepLeader ignores late votes. Another leader's heartbeat in its own term
// is impossible while votes survive crashes — each process votes once per
// term and two majorities intersect. A restart without a stable store can
// forget a vote; the checker then records two leaders, and this one yields
// to the other.
func stepLeader(r *raft, env nodes.Env, from int, m nodes.Message) {
	if m.Kind == kindHeartbeat {
		r.becomeFollower(env, m.A)
		r.heartbeatFrom(env, from)
	}
}

func (r *raft) heartbeatFrom(env nodes.Env, from int) {
	r.learn(env, from)
	r.resetElectionTimer(env)
	env.Send(r.Peers[from].ID, r.msg(kindHeartbeatAck))
}
