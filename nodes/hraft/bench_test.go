package hraft

import (
	"io"
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
