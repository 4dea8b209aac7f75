package hraft

import (
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/hashicorp/raft"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

// pairHost connects two transports directly: a send is delivered at once,
// as the node's goroutine would deliver it, without a network, so the
// benchmark measures what the adapter adds (encoding, the call table, a
// serving goroutine per request).
type pairHost struct {
	self  int
	peers []nodes.Peer
	other **transport
}

func (h pairHost) Self() nodes.Rank                     { return h.peers[h.self].Rank }
func (h pairHost) Peers() []nodes.Peer                  { return h.peers }
func (h pairHost) Now() time.Duration                   { return 0 }
func (h pairHost) Stable() nodes.StableStore            { return new(nodetest.MemStable) }
func (h pairHost) Log() io.Writer                       { return io.Discard }
func (h pairHost) Decide(nodes.Rank)                    {}
func (h pairHost) Send(_ nodes.PeerID, m nodes.Message) { (*h.other).deliver(nodes.PeerID(h.self), m) }

// answer answers every RPC on c as the library's main loop would, until
// stop is closed.
func answer(c <-chan raft.RPC, stop <-chan struct{}) {
	for {
		select {
		case rpc := <-c:
			switch rpc.Command.(type) {
			case *raft.AppendEntriesRequest:
				rpc.Respond(&raft.AppendEntriesResponse{Term: 2, Success: true}, nil)
			case *raft.RequestVoteRequest:
				rpc.Respond(&raft.RequestVoteResponse{Term: 2, Granted: true}, nil)
			}
		case <-stop:
			return
		}
	}
}

// A heartbeat and its answer (two messages) through the adapter, against
// the library's own in-memory transport (raft.NewInmemTransport), which
// hands the request's pointer over a channel. The difference is the
// adapter's cost per message; a live node adds its own (the step lines,
// the codec, the socket), measured by nodes/live's benchmarks.
func BenchmarkHeartbeat(b *testing.B) {
	req := &raft.AppendEntriesRequest{RPCHeader: raft.RPCHeader{ID: []byte("0"), Addr: []byte("0")}, Term: 2}
	b.Run("adapter", func(b *testing.B) {
		peers := []nodes.Peer{{ID: 0, Rank: nodes.Rank{ID: nodes.IDFromUint64(1)}}, {ID: 1, Rank: nodes.Rank{ID: nodes.IDFromUint64(2)}}}
		var t0, t1 *transport
		t0 = newTransport(pairHost{0, peers, &t1}, "0", time.Second)
		t1 = newTransport(pairHost{1, peers, &t0}, "1", time.Second)
		stop := make(chan struct{})
		go answer(t1.Consumer(), stop)
		run(b, func(resp *raft.AppendEntriesResponse) error { return t0.AppendEntries("1", "1", req, resp) })
		close(stop)
		t0.close()
		t1.close()
	})
	b.Run("inmem", func(b *testing.B) {
		a0, t0 := raft.NewInmemTransport("0")
		a1, t1 := raft.NewInmemTransport("1")
		t0.Connect(a1, t1)
		t1.Connect(a0, t0)
		stop := make(chan struct{})
		go answer(t1.Consumer(), stop)
		run(b, func(resp *raft.AppendEntriesResponse) error { return t0.AppendEntries("1", a1, req, resp) })
		close(stop)
		t0.Close()
		t1.Close()
	})
}

func run(b *testing.B, call func(*raft.AppendEntriesResponse) error) {
	b.ReportAllocs()
	var resp raft.AppendEntriesResponse
	start := time.Now()
	for b.Loop() {
		if err := call(&resp); err != nil || !resp.Success {
			b.Fatalf("%v %+v", err, resp)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(2*b.N), "ns/msg")
}

// The library's own CPU with a leader in place: five servers, unchanged,
// over its in-memory transport and stores in one process, with the timing
// electbench gives it live at uniform(5ms,10ms) (its defaults in T, T the
// live unit, 12.5 ms: heartbeat and election timeouts 250 ms, lease 125
// ms, commit 12.5 ms), run for a second per iteration once a leader is
// elected. cpu-ms/s is the process's user and system CPU per second of
// that steady state, all five servers together: the figure a live run's
// node processes are compared with (docs/LIBRARIES.md, "CPU").
func BenchmarkSteadyClusterCPU(b *testing.B) {
	s := &settings{heartbeat: 250 * time.Millisecond, election: 250 * time.Millisecond, lease: 125 * time.Millisecond, commit: 12500 * time.Microsecond}
	var servers []raft.Server
	var trans []*raft.InmemTransport
	for i := range 5 {
		id := raft.ServerID(strconv.Itoa(i))
		addr, t := raft.NewInmemTransport(raft.ServerAddress(id))
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: id, Address: addr})
		trans = append(trans, t)
	}
	for _, a := range trans {
		for i, t := range trans {
			a.Connect(servers[i].Address, t)
		}
	}
	var rafts []*raft.Raft
	for i := range 5 {
		stable := raft.NewInmemStore()
		logs, err := bootLog(servers, stable)
		if err != nil {
			b.Fatal(err)
		}
		c := s.config(servers[i].ID)
		c.LogLevel = "off"
		r, err := raft.NewRaft(c, fsm{}, logs, stable, raft.NewInmemSnapshotStore(), trans[i])
		if err != nil {
			b.Fatal(err)
		}
		rafts = append(rafts, r)
	}
	defer func() {
		for _, r := range rafts {
			r.Shutdown().Error()
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); rafts[0].Leader() == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("no leader within 10 s")
		}
	}
	before, start := nodetest.CPUTime(b), time.Now()
	for b.Loop() {
		time.Sleep(time.Second)
	}
	b.ReportMetric(float64((nodetest.CPUTime(b)-before).Microseconds())/1e3/time.Since(start).Seconds(), "cpu-ms/s")
}
