package live

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/ring"
	"github.com/electbench/electbench/pow"
)

// startMemNodes runs n nodes over one in-memory network (memTransport):
// each is a whole node (shell, env, timers, counters) but its transport.
// It returns them once each has said hello.
func startMemNodes(t *testing.T, n int) []*testNode {
	t.Helper()
	return startMemNodesOn(t, newMemHub(), n)
}

// startMemNodesOn runs n nodes at addresses mem-0, mem-1, ... of hub.
func startMemNodesOn(t *testing.T, hub *memHub, n int) []*testNode {
	t.Helper()
	var ns []*testNode
	for i := range n {
		key, addr := mint(t), fmt.Sprintf("mem-%d", i)
		o := Options{Identity: key, Mono: fakeMono}
		ns = append(ns, runNodeWith(t, key, func(in io.Reader, out io.Writer) error {
			nd := newNode(o, out)
			return nd.run(context.Background(), hub.transport(addr, nd.post), in)
		}))
		if r := ns[i].next("hello"); r.Addr != addr {
			t.Fatalf("node %d says hello from %q, want %q", i, r.Addr, addr)
		}
	}
	return ns
}

// startPipeNodes runs n nodes over the real transport, through net.Pipe
// connections (memNet): handshakes, sealed frames and all.
func startPipeNodes(t *testing.T, n int) []*testNode {
	t.Helper()
	net := &memNet{ln: map[string]*memListener{}}
	var ns []*testNode
	for i := range n {
		ns = append(ns, startNode(t, net, fmt.Sprintf("mem-%d", i)))
	}
	return ns
}

// until returns the next report of type typ, skipping others.
func (n *testNode) until(typ string) Report {
	n.t.Helper()
	for r := range n.reports {
		if r.Type == typ {
			return r
		}
	}
	n.t.Fatalf("no %s report before the node ended", typ)
	return Report{}
}

// electionRun is what a cluster's nodes reported in one election.
type electionRun struct {
	ranks   []nodes.Rank
	decided [][]string       // by position: the leaders each decided, in order
	sent    map[string]int64 // by kind, summed over the nodes
	recv    map[string]int64 // likewise
	dropped map[string]int64 // likewise
	frames  map[string]int64 // SEALED frames sent, summed
}

// elect configures ns (complete links, addresses mem-0, mem-1, ...) to
// run alg, starts them, has initiator initiate, lets the fake clock run
// for a second and stops them.
func elect(t *testing.T, ns []*testNode, alg string, initiator func(ranks []nodes.Rank) int) electionRun {
	t.Helper()
	keys := make([]*pow.Key, len(ns))
	for i, n := range ns {
		keys[i] = n.key
	}
	run := electionRun{decided: make([][]string, len(ns)), sent: map[string]int64{}, recv: map[string]int64{}, dropped: map[string]int64{}, frames: map[string]int64{}}
	run.ranks = configureAll(t, ns, alg, Detector{})
	startAll(ns)
	ns[initiator(run.ranks)].cmd(Command{Type: "initiate"})
	time.Sleep(time.Second)
	synctest.Wait()
	for i, n := range ns {
		n.cmd(Command{Type: "stop"})
		for r := range n.reports {
			switch r.Type {
			case "step":
				run.decided[i] = append(run.decided[i], r.Decide...)
			case "stats":
				add(run.sent, r.Stats.Sent)
				add(run.recv, r.Stats.Recv)
				add(run.dropped, r.Stats.Dropped)
				run.frames["SEALED"] += r.Stats.FramesSent["SEALED"]
			}
		}
		if err := <-n.done; err != nil {
			t.Fatalf("node %d ended with %v", i, err)
		}
		n.in.Close()
	}
	return run
}

// configureAll configures ns (complete links, addresses mem-0, mem-1,
// ...) to run alg with detector d and waits for every link; it returns
// their ranks by position.
func configureAll(t *testing.T, ns []*testNode, alg string, d Detector) []nodes.Rank {
	t.Helper()
	keys := make([]*pow.Key, len(ns))
	for i, n := range ns {
		keys[i] = n.key
	}
	for i, n := range ns {
		cfg := configFor(alg, i, keys)
		cfg.Detector = d
		for j := range ns {
			if j != i {
				cfg.Links = append(cfg.Links, Link{To: j, Addr: fmt.Sprintf("mem-%d", j)})
			}
		}
		n.cmd(Command{Type: "configure", Config: cfg})
	}
	var ranks []nodes.Rank
	for i, n := range ns {
		if r := n.until("linked"); r.Up != len(ns)-1 || r.Refused != 0 {
			t.Fatalf("node %d linked %d up, %d refused; want %d up", i, r.Up, r.Refused, len(ns)-1)
		}
		ranks = append(ranks, n.key.Rank())
	}
	return ranks
}

// startAll starts ns at one t0.
func startAll(ns []*testNode) {
	t0 := fakeMono()
	for _, n := range ns {
		n.cmd(Command{Type: "start", T0: t0})
	}
}

func add(sum, m map[string]int64) {
	for k, v := range m {
		sum[k] += v
	}
}

// highest is the position of the highest rank; lowest, of the lowest.
func highest(ranks []nodes.Rank) int {
	best := 0
	for i := range ranks {
		if ranks[i].Cmp(&ranks[best]) > 0 {
			best = i
		}
	}
	return best
}

func lowest(ranks []nodes.Rank) int {
	worst := 0
	for i := range ranks {
		if ranks[i].Cmp(&ranks[worst]) < 0 {
			worst = i
		}
	}
	return worst
}

// checkLeader fails unless every node decided the highest rank, once.
func checkLeader(t *testing.T, run electionRun) {
	t.Helper()
	want := run.ranks[highest(run.ranks)].String()
	for i, d := range run.decided {
		if len(d) != 1 || d[0] != want {
			t.Errorf("node %d decided %v, want [%s] once", i, d, want)
		}
	}
}

// checkCounts fails unless the nodes sent the counts want by kind, and
// received and framed every message they sent.
func checkCounts(t *testing.T, run electionRun, want map[string]int64) {
	t.Helper()
	var total int64
	for k, v := range want {
		if run.sent[k] != v {
			t.Errorf("sent %d %s, want %d (all sent: %v)", run.sent[k], k, v, run.sent)
		}
		if run.recv[k] != v {
			t.Errorf("received %d %s, want %d (all received: %v)", run.recv[k], k, v, run.recv)
		}
		total += v
	}
	if len(run.sent) != len(want) || len(run.dropped) != 0 || run.frames["SEALED"] != total {
		t.Errorf("sent %v, dropped %v, %d SEALED frames; want only %v, none dropped, %d frames", run.sent, run.dropped, run.frames["SEALED"], want, total)
	}
}

// chang-roberts over the in-memory transport, one initiator (position 0):
// its ELECTION travels to the highest process, d hops on, whose own
// travels the whole ring (N) and back as ELECTED (N) — ALGORITHMS.md,
// "chang-roberts — ring with a participation flag". The same run over the
// real transport (net.Pipe, handshakes, sealed frames) counts the same.
func TestMemTransportChangRoberts(t *testing.T) {
	const n = 5
	for _, tc := range []struct {
		name  string
		start func(*testing.T, int) []*testNode
	}{{"mem", startMemNodes}, {"pipe", startPipeNodes}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				run := elect(t, tc.start(t, n), "chang-roberts", func([]nodes.Rank) int { return 0 })
				checkLeader(t, run)
				d := int64(highest(run.ranks)) // hops from position 0 to the highest
				checkCounts(t, run, map[string]int64{"ELECTION": d + n, "ELECTED": n})
			})
		})
	}
}

// bully (classic) over the in-memory transport, the lowest initiating
// with nobody crashed: ELECTION = OK = a(a+1)/2 and COORDINATOR = (N−1)a
// with a = N−1 processes above the initiator (nodes/bully's theory, 36
// messages at N = 5), and the highest wins. The in-memory links deliver
// in causal order, as equal latencies do.
func TestMemTransportBully(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n, a = 5, 4
		run := elect(t, startMemNodes(t, n), "bully", lowest)
		want := run.ranks[highest(run.ranks)].String()
		for i, d := range run.decided {
			if len(d) == 0 || d[len(d)-1] != want {
				t.Errorf("node %d decided %v, want %s last", i, d, want)
			}
		}
		checkCounts(t, run, map[string]int64{"ELECTION": a * (a + 1) / 2, "OK": a * (a + 1) / 2, "COORDINATOR": (n - 1) * a})
	})
}

// The heartbeat detector over the in-memory transport, one call cutting
// mem-2 off: every P each node pings every peer, and one silent for longer
// than τ is suspected, once (ALGORITHMS.md, "Failure detectors"). The two
// connected nodes suspect only mem-2, which suspects both; pings to and
// from it are dropped and counted.
func TestMemTransportHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hub := newMemHub()
		ns := startMemNodesOn(t, hub, 3)
		configureAll(t, ns, "live-test-echo", Detector{Kind: "heartbeat", P: time.Millisecond, Tau: 4 * time.Millisecond})
		hub.partition("mem-2")
		startAll(ns)
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		want := [][]int{{2}, {2}, {0, 1}}
		for i, n := range ns {
			n.cmd(Command{Type: "stop"})
			var suspects []int
			var st *Stats
			for r := range n.reports {
				switch {
				case r.Type == "step" && r.Ev == "suspect":
					suspects = append(suspects, r.Peer)
				case r.Type == "stats":
					st = r.Stats
				}
			}
			if err := <-n.done; err != nil {
				t.Fatalf("node %d ended with %v", i, err)
			}
			n.in.Close()
			if !slices.Equal(suspects, want[i]) {
				t.Errorf("node %d suspected %v, want %v", i, suspects, want[i])
			}
			// 51 ticks (one at the start, one a millisecond), a ping to
			// each peer at each, those to a cut peer dropped.
			cut := int64(len(want[i]))
			if st == nil || st.Sent["PING"] != 2*51 || st.Dropped["PING"] != cut*51 || st.Recv["PING_ACK"] != (2-cut)*51 {
				t.Errorf("node %d counts %+v; want %d PING sent, %d dropped, %d PING_ACK back", i, st, 2*51, cut*51, (2-cut)*51)
			}
		}
	})
}
