package live

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// running counts the goroutines of pingLibrary that have not ended.
var running atomic.Int32

// pingLibrary is a library with a clock of its own: every 10 ms its
// goroutine sends LIVE_TEST_ELECTION(self) to every other process; a
// second goroutine decides the sender of each one received.
type pingLibrary struct {
	host nodes.Host
	in   chan nodes.Message
	stop chan struct{}
	wg   sync.WaitGroup
}

func (l *pingLibrary) Start(h nodes.Host) error {
	l.host, l.in, l.stop = h, make(chan nodes.Message, 64), make(chan struct{})
	l.wg.Add(2)
	running.Add(2)
	go l.tick()
	go l.receive()
	return nil
}

func (l *pingLibrary) tick() {
	defer func() { running.Add(-1); l.wg.Done() }()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			for _, p := range l.host.Peers() {
				if p.Rank != l.host.Self() {
					l.host.Send(p.ID, nodes.Message{Kind: testElection, Rank: l.host.Self()})
				}
			}
		case <-l.stop:
			return
		}
	}
}

func (l *pingLibrary) receive() {
	defer func() { running.Add(-1); l.wg.Done() }()
	for {
		select {
		case m := <-l.in:
			l.host.Decide(m.Rank)
		case <-l.stop:
			return
		}
	}
}

func (l *pingLibrary) Deliver(_ nodes.PeerID, m nodes.Message) {
	select {
	case l.in <- m:
	default:
	}
}

func (l *pingLibrary) Stop() { close(l.stop); l.wg.Wait() }

func init() {
	nodes.Register(nodes.Algorithm{Name: "live-test-library", Family: "test", Topology: nodes.Complete, LiveOnly: "a test library",
		New: func(nodes.Config) (func() nodes.Machine, error) {
			return func() nodes.Machine { return nodes.Hosted(&pingLibrary{}) }, nil
		}})
}

// A node hosts a library (nodes.Library): what its goroutines send goes
// through the node's links, counted, and listed with its decisions on
// "library" steps; what arrives is delivered to it; a reset stops every
// goroutine of it, and so does the node's end.
func TestNodeHostsLibrary(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		net := &memNet{ln: map[string]*memListener{}}
		a, b := startNode(t, net, "a"), startNode(t, net, "b")
		keys := []*pow.Key{a.key, b.key}
		for trial := range 2 {
			ca, cb := configFor("live-test-library", 0, keys), configFor("live-test-library", 1, keys)
			ca.Links, cb.Links = []Link{{To: 1, Addr: "b"}}, []Link{{To: 0, Addr: "a"}}
			ca.Epoch, cb.Epoch = uint64(trial+1), uint64(trial+1)
			a.cmd(Command{Type: "configure", Config: ca})
			b.cmd(Command{Type: "configure", Config: cb})
			for _, n := range []*testNode{a, b} {
				for r := <-n.reports; r.Type != "linked"; r = <-n.reports {
				}
			}
			t0 := fakeMono()
			a.cmd(Command{Type: "start", T0: t0})
			b.cmd(Command{Type: "start", T0: t0})
			var sent, decided bool
			for r := range b.reports {
				if r.Type != "step" {
					continue
				}
				if r.Ev == "library" && len(r.Sent) == 1 && r.Sent[0].To == 0 && r.Sent[0].Kind == testElection {
					sent = true
				}
				if r.Ev == "library" && len(r.Decide) > 0 && r.Decide[0] == a.key.Rank().String() {
					decided = true
				}
				if sent && decided {
					break
				}
			}
			if running.Load() != 4 {
				t.Fatalf("trial %d: %d library goroutines running, want 4", trial, running.Load())
			}
			for _, n := range []*testNode{a, b} {
				n.cmd(Command{Type: "reset"})
				var st *Stats
				for r := range n.reports {
					if r.Type == "stats" {
						st = r.Stats
						break
					}
				}
				if st.Sent["LIVE_TEST_ELECTION"] == 0 || st.Recv["LIVE_TEST_ELECTION"] == 0 {
					t.Fatalf("trial %d: stats %+v", trial, st)
				}
			}
			if n := running.Load(); n != 0 {
				t.Fatalf("trial %d: %d library goroutines outlived the reset", trial, n)
			}
		}
		a.stop()
		b.stop()
	})
}
