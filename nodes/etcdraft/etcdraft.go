package etcdraft

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/electbench/electbench/nodes"
)

// kinds maps each of etcd's message types that crosses the network to a
// kind of the same name (MsgVote, MsgApp, ...). Votes and pre-votes, with
// their responses, are the election; everything else is the leader's
// maintenance (MsgApp, MsgHeartbeat) and its answers. Types local to a
// process (MsgHup, MsgBeat, MsgStorageAppend, ...) never reach the wire and
// have no kind.
var (
	kinds [32]nodes.Kind // by raftpb.MessageType

	timerTick    = nodes.RegisterTimer("RAFT_TICK", nodes.MaintenanceClass) // etcd times its elections inside Tick
	timerPropose = nodes.RegisterTimer("PROPOSE", nodes.MaintenanceClass)
)

var electionTypes = []raftpb.MessageType{raftpb.MsgVote, raftpb.MsgVoteResp, raftpb.MsgPreVote, raftpb.MsgPreVoteResp}

func init() {
	for t := range raftpb.MessageType(len(kinds)) {
		name, ok := raftpb.MessageType_name[int32(t)]
		if !ok || raft.IsLocalMsg(t) {
			continue
		}
		class := nodes.MaintenanceClass
		if slices.Contains(electionTypes, t) {
			class = nodes.ElectionClass
		}
		kinds[t] = nodes.RegisterKind(name, class)
	}
	nodes.Register(nodes.Algorithm{
		Name:      "etcd-raft",
		Family:    "quorum",
		Summary:   "etcd's Raft (go.etcd.io/raft/v3 v3.6.0, unchanged): RawNode on an in-memory log, ticks, pre-vote and check-quorum",
		Topology:  nodes.Complete,
		StartsAll: true,
		// Building the membership costs each process O(N²) inside etcd
		// (confchange.Restore adds the voters one by one), so a trial
		// O(N³): N = 128 takes seconds, 256 close to a minute. etcd runs
		// clusters of a handful of voters; "all" (the default sweep) stops
		// at 64, and etcd-raft named runs at any size.
		AllUpTo:  64,
		Variants: variants,
		Params:   params,
		New:      newMachine,
		Quorum: &nodes.Quorum{
			Ballot: kinds[raftpb.MsgVote],
			Grant:  kinds[raftpb.MsgVoteResp],
			// The leader of a term opens it with MsgApp (the empty entry
			// of its term) before its first MsgHeartbeat; MsgSnap and
			// MsgTimeoutNow are a leader's too.
			Leader:     kinds[raftpb.MsgHeartbeat],
			LeaderAlso: []nodes.Kind{kinds[raftpb.MsgApp], kinds[raftpb.MsgSnap], kinds[raftpb.MsgTimeoutNow]},
			// A pre-vote asks for the term after the sender's: only a
			// follower or a candidate sends one.
			Campaign: []nodes.Kind{kinds[raftpb.MsgPreVote]},
			// The leader broadcasts MsgHeartbeat every heartbeat-tick ticks.
			Heartbeat: func(cfg nodes.Config) (time.Duration, error) {
				s, err := settingsOf(cfg)
				if err != nil {
					return 0, err
				}
				return time.Duration(s.heartbeatTick) * s.tick, nil
			},
			// Every process ticks once a tick, and the leader's heartbeats
			// come every few.
			Steady: func(cfg nodes.Config) (time.Duration, error) {
				s, err := settingsOf(cfg)
				if err != nil {
					return 0, err
				}
				return s.tick, nil
			},
			Settle: func(cfg nodes.Config) (time.Duration, error) {
				s, err := settingsOf(cfg)
				if err != nil {
					return 0, err
				}
				return s.settle(cfg.Bound()), nil
			},
		},
	})
}

// The variants switch etcd's two election guards. The default is what etcd's
// server runs (and so every Kubernetes control plane): check-quorum always,
// pre-vote by default since etcd v3.6. The raft library's own default is
// neither ("plain"): the paper's election with etcd's ticks and log.
var variants = []nodes.Variant{
	{Name: "etcd", Summary: "pre-vote and check-quorum on, as etcd's server runs them"},
	{Name: "plain", Summary: "neither pre-vote nor check-quorum: the raft library's defaults"},
	{Name: "pre-vote", Summary: "pre-vote only"},
	{Name: "check-quorum", Summary: "check-quorum only"},
}

var params = []nodes.Param{
	{Name: "tick", Default: "2T", Summary: "interval between Tick() calls (duration); etcd's server ticks every heartbeat interval"},
	{Name: "election-tick", Default: "10", Summary: "ticks without a leader before a campaign; each timeout is drawn from [e, 2e) ticks (etcd's default 10)"},
	{Name: "heartbeat-tick", Default: "1", Summary: "ticks between a leader's heartbeats (etcd's default 1)"},
	{Name: "propose-every", Default: "0", Summary: "the leader proposes an 8-byte entry this often, so that log up-to-dateness matters (duration; 0: never)"},
}

// settings are one run's configuration, shared by its processes.
type settings struct {
	tick, proposeEvery          time.Duration
	electionTick, heartbeatTick int
	preVote, checkQuorum        bool
}

// settle is etcd-raft's settling window (nodes.Quorum.Settle). Each
// process ticks at its own phase, so a follower counts at most
// heartbeat-tick + 1 ticks, plus D, between two of its leader's
// heartbeats, and the leader hears the answers within 2D more: no
// follower's randomized timeout (at least election-tick ticks) expires and
// check-quorum never steps the leader down when that is less than
// election-tick ticks. A campaign is timed inside Tick, so the window
// covers a leader stepping down at a check-quorum (every election-tick
// ticks) and its campaign after a randomized timeout (under 2·election-tick
// ticks), twice over.
func (s *settings) settle(d time.Duration) time.Duration {
	if time.Duration(s.heartbeatTick+1)*s.tick+2*d >= time.Duration(s.electionTick)*s.tick {
		return 0
	}
	return time.Duration(4*s.electionTick+s.heartbeatTick+2)*s.tick + 2*d
}

func newMachine(cfg nodes.Config) (func() nodes.Machine, error) {
	s, err := settingsOf(cfg)
	if err != nil {
		return nil, err
	}
	return func() nodes.Machine { return &machine{settings: s} }, nil
}

func settingsOf(cfg nodes.Config) (*settings, error) {
	if err := nodes.CheckParams("etcd-raft", cfg.Params, params); err != nil {
		return nil, err
	}
	s := new(settings)
	switch cfg.Variant {
	case "", "etcd":
		s.preVote, s.checkQuorum = true, true
	case "plain":
	case "pre-vote":
		s.preVote = true
	case "check-quorum":
		s.checkQuorum = true
	default:
		return nil, fmt.Errorf("algorithm etcd-raft has no variant %q (known: etcd, plain, pre-vote, check-quorum)", cfg.Variant)
	}
	var err error
	if s.tick, err = cfg.Duration("tick", "2T"); err != nil {
		return nil, err
	}
	if s.tick <= 0 {
		return nil, fmt.Errorf("parameter tick: %v is not positive", s.tick)
	}
	if s.proposeEvery, err = cfg.Duration("propose-every", "0"); err != nil {
		return nil, err
	}
	if s.proposeEvery < 0 {
		return nil, fmt.Errorf("parameter propose-every: %v is negative", s.proposeEvery)
	}
	if s.electionTick, err = intParam(cfg, "election-tick", "10"); err != nil {
		return nil, err
	}
	if s.heartbeatTick, err = intParam(cfg, "heartbeat-tick", "1"); err != nil {
		return nil, err
	}
	if s.electionTick <= s.heartbeatTick {
		// etcd's Config.validate: "election tick must be greater than heartbeat tick".
		return nil, fmt.Errorf("parameter election-tick: %d must exceed heartbeat-tick %d", s.electionTick, s.heartbeatTick)
	}
	return s, nil
}

func intParam(cfg nodes.Config, name, def string) (int, error) {
	v, ok := cfg.Params[name]
	if !ok {
		v = def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 || n > 1<<20 {
		return 0, fmt.Errorf("parameter %s: %q is not a whole number of ticks in 1..%d", name, v, 1<<20)
	}
	return n, nil
}

// maxSizePerMsg bounds the entries of one MsgApp (etcd's MaxSizePerMsg) so
// that a message always fits nodes.MaxBodySize.
const maxSizePerMsg = 1024

// bootIndex is the index and term of the snapshot every process starts
// from; the log proper begins after it.
const bootIndex = 1

// machine is one process: etcd's RawNode on a logStore, with this
// process and its peers as raft ids 1..N in ascending rank order
// (Env.Peers), so every process numbers the group alike.
type machine struct {
	*settings
	peers   []nodes.Peer
	id      uint64 // this process's raft id: its index in peers, plus one
	slot    *slot  // the goroutine that steps this machine (rand.go)
	storage *logStore
	rn      *raft.RawNode

	lead      uint64           // the leader etcd last named; 0 before any
	believed  uint64           // the leader last decided; 0 before any
	state     raft.StateType   // after the last event
	proposals uint64           // entries proposed so far
	out       []raftpb.Message // Ready's messages, sent once etcd is left
	enc       []byte           // scratch for encoding a message (send)
	bodies    []string         // the body last sent to each peer, by raft id - 1 (send)

	// The stable store (nodes.StableStore, stable.go): what this event
	// changed, as records to append, and the sizes that decide when to
	// compact (store the whole state instead). kept is -1 until the store
	// holds a whole state.
	persists bool   // the runtime keeps a stable store
	wal      []byte // this event's records
	kept     int    // bytes of the last whole state stored
	appended int    // bytes appended since
}

func (m *machine) Start(env nodes.Env) {
	m.slot = here()
	m.peers = env.Peers()
	i, ok := slices.BinarySearchFunc(m.peers, env.Self(), func(p nodes.Peer, r nodes.Rank) int { return p.Rank.Compare(r) })
	if !ok {
		panic(fmt.Sprintf("etcd-raft: process %v is missing from its own peer list (the complete topology lists every process)", env.Self()))
	}
	m.id = uint64(i) + 1
	m.bodies = make([]string, len(m.peers))
	// Every process starts from the same snapshot: index and term
	// bootIndex, every process a voter. It is the membership RawNode.
	// Bootstrap would build, but it leaves no configuration entries in the
	// log, so a restarted process recovers its membership from the same
	// snapshot, then its hard state and log, with nothing to re-apply
	// (CockroachDB starts its raft groups from an initial state this way).
	voters := make([]uint64, len(m.peers))
	for j := range voters {
		voters[j] = uint64(j) + 1
	}
	m.storage = newLogStore(raftpb.Snapshot{Metadata: raftpb.SnapshotMetadata{
		Index: bootIndex, Term: bootIndex, ConfState: raftpb.ConfState{Voters: voters}}})
	m.kept = -1
	if st, ok := env.(nodes.StableStore); ok {
		m.persists = true
		if b := st.LoadStable(); b != nil {
			m.kept = len(b)
			hs, ents, err := decodeStable(b)
			if err != nil {
				panic(fmt.Sprintf("etcd-raft: process %v cannot recover: %v", env.Self(), err))
			}
			m.storage.hardState = hs
			m.storage.append(ents)
		}
	}
	c := &raft.Config{
		ID:              m.id,
		ElectionTick:    m.electionTick,
		HeartbeatTick:   m.heartbeatTick,
		Storage:         m.storage,
		MaxSizePerMsg:   maxSizePerMsg,
		MaxInflightMsgs: 256,
		CheckQuorum:     m.checkQuorum,
		PreVote:         m.preVote,
		Logger:          quiet{},
	}
	m.step(env, func() {
		rn, err := raft.NewRawNode(c)
		if err != nil {
			panic(fmt.Sprintf("etcd-raft: starting process %v: %v", env.Self(), err))
		}
		m.rn = rn
	})
	// Each process ticks from its own start: a tick phase drawn uniformly
	// from (0, tick], as independent servers' tickers are, so that equal
	// randomized timeouts do not expire at the same instant everywhere.
	env.SetTimer(time.Duration(env.Rand().Int64N(int64(m.tick)))+1, timerTick)
	if m.proposeEvery > 0 {
		env.SetTimer(m.proposeEvery, timerPropose)
	}
}

// Initiate campaigns now, as if the election timeout had expired (a
// pre-vote first under pre-vote). The workload never asks: every process
// starts ticking.
func (m *machine) Initiate(env nodes.Env) {
	m.step(env, func() { m.rn.Campaign() })
}

// Suspect is ignored: Raft's failure detector is its election timeout.
func (m *machine) Suspect(nodes.Env, nodes.PeerID) {}

func (m *machine) Receive(env nodes.Env, from nodes.PeerID, msg nodes.Message) {
	var pm raftpb.Message
	// Decoded from the body's own bytes, not a copy: Unmarshal only reads
	// its input and copies what it keeps (entries' data, context), so the
	// immutable string is never written through or retained.
	if err := pm.Unmarshal(unsafe.Slice(unsafe.StringData(msg.Body), len(msg.Body))); err != nil {
		return // not etcd's message
	}
	// A message that lies about its sender, its receiver, its kind or its
	// term is dropped, as are types local to a process (etcd's Step
	// refuses them).
	if pm.From < 1 || pm.From > uint64(len(m.peers)) || m.peers[pm.From-1].ID != from || pm.To != m.id ||
		int(pm.Type) >= len(kinds) || kinds[pm.Type] != msg.Kind || !msg.Kind.Valid() || msg.A != int64(pm.Term) {
		return
	}
	m.step(env, func() { m.rn.Step(pm) }) // an error means etcd dropped it (a stale or unknown peer's)
}

func (m *machine) Timeout(env nodes.Env, t nodes.TimerID) {
	switch t {
	case timerTick:
		m.step(env, m.tickRN)
		env.SetTimer(m.tick, timerTick)
	case timerPropose:
		if m.state == raft.StateLeader {
			m.proposals++
			var data [8]byte
			for i := range data {
				data[i] = byte(m.proposals >> (8 * i))
			}
			m.step(env, func() { m.rn.Propose(data[:]) })
		}
		env.SetTimer(m.proposeEvery, timerPropose)
	}
}

// step is one event: f calls into etcd with this process's seeded source
// published in its goroutine's slot (rand.go), Ready is drained, and then,
// outside etcd, the event's effects are published. The slot is cleared
// even if etcd panics (the runtime turns a panic into a row's error and
// other trials go on).
func (m *machine) step(env nodes.Env, f func()) {
	m.inEtcd(env, f)
	m.publish(env)
}

func (m *machine) inEtcd(env nodes.Env, f func()) {
	m.slot.enter(env.Rand())
	defer m.slot.leave()
	f()
	m.ready()
}

func (m *machine) tickRN() { m.rn.Tick() }

// ready is etcd's Ready loop with synchronous storage writes: persist the
// hard state and the entries to the logStore, keep the messages for
// sending, Advance. Committed entries need no applying: the membership never
// changes and the proposals' data means nothing. Called inside a step.
//
// The leader and role are read off the soft state the Readys carry, not
// BasicStatus after the loop: a Ready carries the soft state whenever it
// changed, and the loop ends only once it equals the last one accepted, so
// the last one carried is what BasicStatus would say, without building a
// Status every event.
func (m *machine) ready() {
	var soft *raft.SoftState
	for m.rn.HasReady() {
		rd := m.rn.Ready()
		if rd.SoftState != nil {
			soft = rd.SoftState
		}
		if !raft.IsEmptyHardState(rd.HardState) {
			m.storage.hardState = rd.HardState
		}
		m.storage.append(rd.Entries)
		// Most Readys change neither (a heartbeat and its answer): the
		// call is skipped then, since appendRecords moves its hard state
		// to the heap on entry (it is marshalled through an interface).
		if m.persists && (!raft.IsEmptyHardState(rd.HardState) || len(rd.Entries) > 0) {
			m.wal = appendRecords(m.wal, rd.HardState, rd.Entries)
		}
		if len(m.out) == 0 {
			// Kept as etcd made it, not copied: Ready hands over its
			// slice and etcd starts the next one afresh.
			m.out = rd.Messages
		} else {
			m.out = append(m.out, rd.Messages...)
		}
		m.rn.Advance(rd)
	}
	if soft == nil {
		return // unchanged since the last event
	}
	m.state = soft.RaftState
	if soft.Lead != 0 {
		m.lead = soft.Lead
	}
}

// publish does what the event decided, outside etcd: first persist
// (etcd's rule: the hard state and log are stable before a message that
// depends on them leaves), then send, then decide.
func (m *machine) publish(env nodes.Env) {
	if len(m.wal) > 0 {
		m.persist(env.(nodes.StableStore))
		m.wal = m.wal[:0]
	}
	for i := range m.out {
		m.send(env, &m.out[i])
	}
	m.out = nil // etcd's slice, dropped rather than cleared for reuse
	if m.lead != 0 && m.lead != m.believed {
		m.believed = m.lead
		env.Decide(m.peers[m.lead-1].Rank)
	}
}

// persist appends the event's records to the stable store, or stores the
// whole state instead when nothing whole is kept yet or the appended
// records outgrow twice the whole state last stored: a write costs what
// it adds, amortized, and the store stays within about three times the
// state.
func (m *machine) persist(st nodes.StableStore) {
	if m.kept >= 0 && m.appended+len(m.wal) <= 2*m.kept+4096 {
		st.AppendStable(m.wal)
		m.appended += len(m.wal)
		return
	}
	first, _ := m.storage.FirstIndex()
	last, _ := m.storage.LastIndex()
	var ents []raftpb.Entry
	if last >= first {
		var err error
		if ents, err = m.storage.Entries(first, last+1, math.MaxUint64); err != nil {
			panic(fmt.Sprintf("etcd-raft: process %d reading its log [%d, %d]: %v", m.id, first, last, err))
		}
	}
	hs, _, _ := m.storage.InitialState()
	m.wal = encodeStable(m.wal[:0], hs, ents)
	st.SaveStable(m.wal)
	m.kept, m.appended = len(m.wal), 0
}

// send carries one of etcd's messages: the body is its protobuf encoding,
// exactly as etcd's transport would carry it; A is its term and B, for a
// vote or pre-vote response, 1 when it grants (for the runtime's quorum
// reading, nodes.Quorum).
func (m *machine) send(env nodes.Env, pm *raftpb.Message) {
	k := nodes.Kind(0)
	if int(pm.Type) < len(kinds) {
		k = kinds[pm.Type]
	}
	if !k.Valid() || pm.To < 1 || pm.To > uint64(len(m.peers)) {
		panic(fmt.Sprintf("etcd-raft: process %d produced %v to %d, which cannot cross the network", m.id, pm.Type, pm.To))
	}
	// Encoded into the machine's scratch buffer, then copied once into
	// the body: Marshal would allocate a buffer per message only for the
	// string to copy it again (issue 42). Most messages are a leader's
	// heartbeats and their answers, each the same bytes as the one before
	// to the same peer until the term or the commit index moves: the body
	// sent last to the peer is reused when the bytes match (compared
	// without a copy), and a body is allocated only when they differ.
	size := pm.Size()
	m.enc = slices.Grow(m.enc[:0], size)[:size]
	n, err := pm.MarshalToSizedBuffer(m.enc)
	if err != nil || n != size || size > nodes.MaxBodySize {
		panic(fmt.Sprintf("etcd-raft: process %d: %v of %d bytes does not fit a message body (%v)", m.id, pm.Type, size, err))
	}
	if last := &m.bodies[pm.To-1]; string(m.enc) != *last {
		*last = string(m.enc)
	}
	msg := nodes.Message{Kind: k, A: int64(pm.Term), Body: m.bodies[pm.To-1]}
	if (pm.Type == raftpb.MsgVoteResp || pm.Type == raftpb.MsgPreVoteResp) && !pm.Reject {
		msg.B = 1
	}
	env.Send(m.peers[pm.To-1].ID, msg)
}

// quiet is etcd's logger, silenced: an algorithm does not print. Fatal and
// Panic still stop the process with etcd's message (an invariant broken
// inside etcd).
type quiet struct{}

func (quiet) Debug(...any)            {}
func (quiet) Debugf(string, ...any)   {}
func (quiet) Error(...any)            {}
func (quiet) Errorf(string, ...any)   {}
func (quiet) Info(...any)             {}
func (quiet) Infof(string, ...any)    {}
func (quiet) Warning(...any)          {}
func (quiet) Warningf(string, ...any) {}
func (quiet) Fatal(v ...any)          { panic("etcd-raft: " + fmt.Sprint(v...)) }
func (quiet) Fatalf(f string, v ...any) {
	panic("etcd-raft: " + fmt.Sprintf(f, v...))
}
func (quiet) Panic(v ...any)            { panic("etcd-raft: " + fmt.Sprint(v...)) }
func (quiet) Panicf(f string, v ...any) { panic("etcd-raft: " + fmt.Sprintf(f, v...)) }
