package etcdraft

import (
	"testing"
	"unsafe"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// BenchmarkRawNodeDirect is the floor BenchmarkSimTrial is measured
// against (issue 42): five of etcd's RawNodes on MemoryStorage, configured
// as a machine configures them (pre-vote, check-quorum, election-tick 10,
// heartbeat-tick 1, the same MaxSizePerMsg and MaxInflightMsgs), built
// afresh every trial as a trial's machines are, and driven through
// BenchmarkSimTrial's trial by a loop with no simulator and no latency:
// every message is stepped into its target as soon as it is read from
// Ready, a tick of every node between two rounds; the leader is crashed
// (no longer stepped) directLead ticks after its election, and the trial
// ends directSettle ticks after the next leader's. A step is a Tick or a
// Step call, what the simulator counts as an event. "bare" hands etcd's
// messages over as they are; "wire" encodes each to its protobuf bytes
// and decodes it again, as a machine's send and Receive do (the body is
// etcd's encoding, as etcd's transport carries it). etcd's
// election-timeout draws go through this package's crypto/rand dispatch
// to the system reader, as in a trial without the seeded slot
// (BenchmarkSimTrial's unseeded).
func BenchmarkRawNodeDirect(b *testing.B) {
	for _, wire := range []bool{false, true} {
		b.Run(map[bool]string{false: "bare", true: "wire"}[wire], func(b *testing.B) {
			const n = 5
			var steps int64
			cpu0 := cpuTime()
			for b.Loop() {
				steps += rawNodeTrial(b, n, wire)
			}
			reportSteps(b, steps, cpu0)
		})
	}
}

// BenchmarkSimTrial's trial in ticks of 2T: its leader is crashed 20T
// after its election, and it ends once the next leader has held for the
// settling window (settings.settle: 4·10+1+2 ticks, and 2D, about 45).
const (
	directLead   = 10
	directSettle = 45
)

// direct is one trial's cluster, driven by rawNodeTrial.
type direct struct {
	b       *testing.B
	rns     []*raft.RawNode
	stores  []*raft.MemoryStorage
	queue   []raftpb.Message // the round's messages, read from Ready
	wire    bool
	enc     []byte // scratch for a message's encoding (wire)
	crashed uint64 // the crashed leader's id; 0 before the crash
	steps   int64
}

// rawNodeTrial runs one election, a leader crash and the re-election on
// n RawNodes, and returns the steps taken.
func rawNodeTrial(b *testing.B, n int, wire bool) int64 {
	voters := make([]uint64, n)
	for i := range voters {
		voters[i] = uint64(i) + 1
	}
	d := &direct{b: b, rns: make([]*raft.RawNode, n), stores: make([]*raft.MemoryStorage, n), wire: wire}
	for i := range d.rns {
		d.stores[i] = raft.NewMemoryStorage()
		if err := d.stores[i].ApplySnapshot(raftpb.Snapshot{Metadata: raftpb.SnapshotMetadata{
			Index: bootIndex, Term: bootIndex, ConfState: raftpb.ConfState{Voters: voters}}}); err != nil {
			b.Fatal(err)
		}
		rn, err := raft.NewRawNode(&raft.Config{ID: uint64(i) + 1, ElectionTick: 10, HeartbeatTick: 1, Storage: d.stores[i],
			MaxSizePerMsg: maxSizePerMsg, MaxInflightMsgs: 256, CheckQuorum: true, PreVote: true, Logger: quiet{}})
		if err != nil {
			b.Fatal(err)
		}
		d.rns[i] = rn
	}
	led := 0
	for led < directSettle || d.crashed == 0 {
		d.round()
		leader := d.leader()
		switch {
		case leader == 0:
		case d.crashed == 0 && led == directLead:
			d.crashed, led = leader, 0
		default:
			led++
		}
	}
	return d.steps
}

// round ticks every live node, then steps messages into their targets
// until none is left.
func (d *direct) round() {
	for i, rn := range d.rns {
		if uint64(i)+1 != d.crashed {
			rn.Tick()
			d.steps++
		}
	}
	for {
		d.queue = d.queue[:0]
		for i := range d.rns {
			d.drain(i)
		}
		if len(d.queue) == 0 {
			return
		}
		for i := range d.queue {
			m := &d.queue[i]
			if m.To == d.crashed {
				continue
			}
			if d.wire {
				d.queue[i] = d.recode(m)
			}
			if err := d.rns[m.To-1].Step(*m); err != nil && err != raft.ErrStepPeerNotFound {
				d.b.Fatal(err)
			}
			d.steps++
		}
	}
}

// drain is a machine's Ready loop: persist to the MemoryStorage, keep the
// messages, Advance.
func (d *direct) drain(i int) {
	rn := d.rns[i]
	for rn.HasReady() {
		rd := rn.Ready()
		if !raft.IsEmptyHardState(rd.HardState) {
			d.stores[i].SetHardState(rd.HardState)
		}
		if err := d.stores[i].Append(rd.Entries); err != nil {
			d.b.Fatal(err)
		}
		d.queue = append(d.queue, rd.Messages...)
		rn.Advance(rd)
	}
}

// recode is a message's trip over the wire as a machine makes it: encoded
// into a scratch buffer, copied once into a body, decoded from the body.
func (d *direct) recode(m *raftpb.Message) raftpb.Message {
	size := m.Size()
	d.enc = append(d.enc[:0], make([]byte, size)...)
	if _, err := m.MarshalToSizedBuffer(d.enc); err != nil {
		d.b.Fatal(err)
	}
	body := string(d.enc)
	var pm raftpb.Message
	if err := pm.Unmarshal(unsafe.Slice(unsafe.StringData(body), len(body))); err != nil {
		d.b.Fatal(err)
	}
	return pm
}

// leader is the live node that is leader, or 0.
func (d *direct) leader() uint64 {
	for i, rn := range d.rns {
		if id := uint64(i) + 1; id != d.crashed && rn.BasicStatus().RaftState == raft.StateLeader {
			return id
		}
	}
	return 0
}
