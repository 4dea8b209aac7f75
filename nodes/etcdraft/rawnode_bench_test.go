package etcdraft

import (
	"testing"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"
)

// BenchmarkRawNodeDirect is the floor BenchmarkSimTrial is measured
// against (issue 42): five of etcd's RawNodes on MemoryStorage, configured
// as a machine configures them (pre-vote, check-quorum, election-tick 10,
// heartbeat-tick 1), driven directly by a loop with no simulator, no
// latency and no encoding: every message is stepped into its target as
// soon as it is read from Ready, a tick of every node between two rounds,
// until the leader has led for 20 ticks; it is then crashed (no longer
// stepped) and the others run 100 ticks more, a new leader elected among
// them. A step is a Tick or a Step call, what the simulator counts as an
// event. etcd's election-timeout draws go through this package's
// crypto/rand dispatch to the system reader, as in a trial without the
// seeded slot (BenchmarkSimTrial's unseeded).
func BenchmarkRawNodeDirect(b *testing.B) {
	const n = 5
	var steps int64
	cpu0 := cpuTime()
	for b.Loop() {
		steps += rawNodeTrial(b, n)
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(steps)/s, "steps/s")
	b.ReportMetric(float64(b.N)/s, "trials/s")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/trial")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(steps)/cpu.Seconds(), "steps/cpu-s")
	}
}

// rawNodeTrial runs one election, a leader crash and the re-election on
// n RawNodes, and returns the steps taken.
func rawNodeTrial(b *testing.B, n int) int64 {
	voters := make([]uint64, n)
	for i := range voters {
		voters[i] = uint64(i) + 1
	}
	rns := make([]*raft.RawNode, n)
	stores := make([]*raft.MemoryStorage, n)
	for i := range rns {
		stores[i] = raft.NewMemoryStorage()
		if err := stores[i].ApplySnapshot(raftpb.Snapshot{Metadata: raftpb.SnapshotMetadata{
			Index: bootIndex, Term: bootIndex, ConfState: raftpb.ConfState{Voters: voters}}}); err != nil {
			b.Fatal(err)
		}
		rn, err := raft.NewRawNode(&raft.Config{ID: uint64(i) + 1, ElectionTick: 10, HeartbeatTick: 1, Storage: stores[i],
			MaxSizePerMsg: maxSizePerMsg, MaxInflightMsgs: 256, CheckQuorum: true, PreVote: true, Logger: quiet{}})
		if err != nil {
			b.Fatal(err)
		}
		rns[i] = rn
	}
	var steps int64
	crashed := uint64(0)
	var queue []raftpb.Message
	led, after := 0, 0
	for after < 100 {
		for i, rn := range rns {
			if uint64(i)+1 == crashed {
				continue
			}
			rn.Tick()
			steps++
		}
		for {
			for i, rn := range rns {
				for rn.HasReady() {
					rd := rn.Ready()
					if !raft.IsEmptyHardState(rd.HardState) {
						stores[i].SetHardState(rd.HardState)
					}
					if err := stores[i].Append(rd.Entries); err != nil {
						b.Fatal(err)
					}
					queue = append(queue, rd.Messages...)
					rn.Advance(rd)
				}
			}
			if len(queue) == 0 {
				break
			}
			batch := queue
			queue = nil
			for _, m := range batch {
				if m.To == crashed {
					continue
				}
				if err := rns[m.To-1].Step(m); err != nil && err != raft.ErrStepPeerNotFound {
					b.Fatal(err)
				}
				steps++
			}
		}
		if crashed != 0 {
			after++
			continue
		}
		for i, rn := range rns {
			if rn.BasicStatus().RaftState == raft.StateLeader {
				if led++; led == 20 {
					crashed = uint64(i) + 1
				}
			}
		}
	}
	return steps
}
