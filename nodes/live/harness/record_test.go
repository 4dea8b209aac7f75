package harness

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	_ "github.com/electbench/electbench/nodes/quorum"
	"github.com/electbench/electbench/nodes/trial"
)

// raftRounds are the step lines of rounds of a 5-node raft cluster whose
// leader (position 4) heartbeats: its tick, the followers' deliveries and
// acknowledgements, its deliveries of those; with ranks, as a traced run
// reports its messages. senders are the positions that report them.
func raftRounds(rounds int, ranks bool) (lines [][]byte, senders []int) {
	var hb, ack nodes.Kind
	var tick nodes.TimerID
	for k := nodes.Kind(1); int(k) < nodes.NumKinds(); k++ {
		switch k.String() {
		case "HEARTBEAT":
			hb = k
		case "HEARTBEAT_ACK":
			ack = k
		}
	}
	for t := nodes.TimerID(1); int(t) < nodes.NumTimers(); t++ {
		if t.String() == "HEARTBEAT_TICK" {
			tick = t
		}
	}
	rank := func(p int) string {
		if !ranks {
			return ""
		}
		return fmt.Sprintf(`,"r":"%064x"`, p+1)
	}
	t := int64(time.Millisecond)
	for range rounds {
		t += int64(5 * time.Millisecond)
		l := fmt.Sprintf(`{"type":"step","t":%d,"ev":"timer","timer":%d,"sent":[`, t, tick)
		for i := range 4 {
			if i > 0 {
				l += ","
			}
			l += fmt.Sprintf(`{"to":%d,"k":%d,"b":44,"a":1%s}`, i, hb, rank(4))
		}
		lines, senders = append(lines, []byte(l+`],"armed":1}`)), append(senders, 4)
		for i := range 4 {
			lines = append(lines, fmt.Appendf(nil, `{"type":"step","t":%d,"ev":"recv","kind":%d,"from":4,"a":1,"sent":[{"to":4,"k":%d,"b":44,"a":1%s}],"armed":1}`,
				t+int64(5100+i)*int64(time.Microsecond), hb, ack, rank(i)))
			senders = append(senders, i)
		}
		for i := range 4 {
			lines = append(lines, fmt.Appendf(nil, `{"type":"step","t":%d,"ev":"recv","kind":%d,"from":%d,"a":1,"armed":1}`,
				t+int64(10200+i)*int64(time.Microsecond), ack, i))
			senders = append(senders, 4)
		}
	}
	return lines, senders
}

// BenchmarkStepLines is the harness's cost per step line of a live raft
// trial (a quorum algorithm: the checker reads every message), from the
// line as a node wrote it to the record and the checker's verdict: parsing,
// logging, settling, and at the end sorting, counting and emitting. The
// ranks are on the lines only when a trace reads them.
func BenchmarkStepLines(b *testing.B) {
	for _, withRanks := range []bool{false, true} {
		b.Run(fmt.Sprint("ranks=", withRanks), func(b *testing.B) {
			lines, senders := raftRounds(100, withRanks)
			alg, variant, err := nodes.Lookup("raft")
			if err != nil {
				b.Fatal(err)
			}
			const n = 5
			ranks := make([]nodes.Rank, n)
			for i := range ranks {
				ranks[i] = nodes.Rank{ID: nodes.ID{^uint64(0), ^uint64(0), ^uint64(0), uint64(i + 1)}}
			}
			r := &Runtime{srv: servers{clients: []*toxi.Client{toxi.NewClient("http://127.0.0.1:1")}}}
			b.ReportAllocs()
			for range b.N {
				c := check.New(nodes.RanksOf(ranks))
				if err := c.WatchQuorum(alg, nodes.Config{Variant: variant, N: n, T: 10 * time.Millisecond}); err != nil {
					b.Fatal(err)
				}
				cfg := trial.Config{Algorithm: alg, Variant: variant, Ranks: nodes.RanksOf(ranks), Latency: trial.Constant(5 * time.Millisecond), Events: c}
				lt := running(r, cfg, ranks)
				for i, line := range lines {
					rep, err := live.ParseReport(line)
					if err != nil {
						b.Fatal(err)
					}
					lt.handle(nodeReport{p: lt.procs.byPos[senders[i]], r: rep})
				}
				res, err := lt.finish()
				if err != nil || res.MessagesByKind()["HEARTBEAT"] != 400 {
					b.Fatalf("%v: %v", res.MessagesByKind(), err)
				}
				c.Finish(&res.Decisions, res.Quiescent, res.End)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
		})
	}
}

// running is a trial as setup leaves it, with no processes behind it.
func running(r *Runtime, cfg trial.Config, ranks []nodes.Rank) *liveTrial {
	n := len(ranks)
	lt := newLiveTrial(&r.opt, r.kept, &r.srv, cfg, &faults{effects: map[int]*linkEffect{}}, 1)
	all := make([]*proc, n)
	for i := range all {
		all[i] = &proc{pos: i, idx: i, stdin: discard{}}
	}
	lt.procs.byPos, lt.procs.all = all, all
	lt.procs.ranks, lt.res.Ranks = ranks, ranks
	lt.procs.positions()
	lt.settle.init(n)
	lt.newLog()
	lt.clock.begin(0)
	lt.recount()
	return lt
}

// discard is the stdin of a process that is not there: commands vanish.
type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) Close() error                { return nil }

// streamRun feeds a 5-node raft cluster's step lines to a trial with no
// processes behind it, in the given arrival order, answering each sync
// with the sender's clock as its lines tell it, and returns the trace, the
// result and the most events held at once. clocked makes it a trial whose
// hosts' clocks were estimated (Record.Clocked).
func streamRun(t *testing.T, hold int, order []int, lines [][]byte, senders []int, clocked bool) (string, *Result, int) {
	old := holdEvents
	holdEvents = hold
	defer func() { holdEvents = old }()
	alg, variant, err := nodes.Lookup("raft")
	if err != nil {
		t.Fatal(err)
	}
	const n = 5
	ranks := make([]nodes.Rank, n)
	for i := range ranks {
		ranks[i] = nodes.Rank{ID: nodes.ID{^uint64(0), ^uint64(0), ^uint64(0), uint64(i + 1)}}
	}
	var buf bytes.Buffer
	tr := trial.NewTrace(&buf)
	cfg := trial.Config{Algorithm: alg, Variant: variant, Ranks: nodes.RanksOf(ranks), Latency: trial.Constant(5 * time.Millisecond), Events: tr}
	lt := running(&Runtime{srv: servers{clients: []*toxi.Client{toxi.NewClient("http://127.0.0.1:1")}}}, cfg, ranks)
	lt.clock.start = time.Now().Add(-time.Hour) // the harness's clock is past every line's
	lt.log.rec.Clocked = clocked
	for _, p := range lt.procs.byPos {
		lt.log.clockStarts(p, 0)
	}
	last := make([]int64, n)
	for _, i := range order {
		rep, err := live.ParseReport(lines[i])
		if err != nil {
			t.Fatal(err)
		}
		p := lt.procs.byPos[senders[i]]
		last[senders[i]] = rep.T
		lt.handle(nodeReport{p: p, r: rep})
		for q, c := range lt.log.wm.clocks {
			if c.awaiting {
				lt.handle(nodeReport{p: q, r: live.Report{Type: "synced", T: last[q.pos]}})
			}
		}
	}
	res, err := lt.finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), res, lt.log.held
}

// TestStreamedIsHeld (issue 22): events emitted as the watermark allows —
// a few held at a time — give the same trace, byte for byte, and the same
// record as events held until the trial ends and sorted then, whatever
// order the nodes' lines arrive in (each node's in its own time order).
func TestStreamedIsHeld(t *testing.T) {
	lines, senders := raftRounds(40, true)
	// Each node's lines in its clock's order, interleaved at random.
	byNode := map[int][]int{}
	for i := range lines {
		byNode[senders[i]] = append(byNode[senders[i]], i)
	}
	for _, idx := range byNode {
		slices.SortStableFunc(idx, func(a, b int) int {
			ra, _ := live.ParseReport(lines[a])
			rb, _ := live.ParseReport(lines[b])
			return cmp.Compare(ra.T, rb.T)
		})
	}
	// Orders of arrival: nodes' lines interleaved at random (any skew),
	// and as pipes deliver them, in time order give or take 3 ms.
	times := make([]int64, len(lines))
	for i := range lines {
		rep, _ := live.ParseReport(lines[i])
		times[i] = rep.T
	}
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 7))
		var order []int
		if seed%2 == 0 {
			queues := maps.Clone(byNode)
			for len(order) < len(lines) {
				p := r.IntN(5)
				if q := queues[p]; len(q) > 0 {
					order, queues[p] = append(order, q[0]), q[1:]
				}
			}
		} else {
			arrive := make([]int64, len(lines))
			for _, idx := range byNode {
				var prev int64
				for _, i := range idx {
					prev = max(prev, times[i]+r.Int64N(int64(3*time.Millisecond)))
					arrive[i] = prev
				}
			}
			order = make([]int, len(lines))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int {
				return cmp.Or(cmp.Compare(arrive[a], arrive[b]), cmp.Compare(times[a], times[b]))
			})
		}
		held, resHeld, most := streamRun(t, 1<<30, order, lines, senders, false)
		streamed, resStreamed, few := streamRun(t, 16, order, lines, senders, false)
		if streamed != held {
			hl, sl := strings.Split(held, "\n"), strings.Split(streamed, "\n")
			for i := range min(len(hl), len(sl)) {
				if hl[i] != sl[i] {
					t.Fatalf("seed %d: the streamed trace differs from the held one at line %d:\n%s\n%s", seed, i, hl[i], sl[i])
				}
			}
			t.Fatalf("seed %d: the streamed trace differs from the held one: %d and %d lines", seed, len(hl), len(sl))
		}
		resHeld.End, resStreamed.End = 0, 0 // the harness's clock at the last line
		if !reflect.DeepEqual(resHeld.Record, resStreamed.Record) {
			t.Fatalf("seed %d: records differ:\n%+v\n%+v", seed, resHeld.Record, resStreamed.Record)
		}
		// A delivery whose line came before its send's takes the send's
		// number all the same.
		if n := traceReceivesFirst(t, held); n != 0 {
			t.Fatalf("seed %d: %d deliveries without their send's number", seed, n)
		}
		if got := resStreamed.MessagesByKind(); got["HEARTBEAT"] != 160 || got["HEARTBEAT_ACK"] != 160 {
			t.Fatalf("seed %d: %v, want 160 of each", seed, got)
		}
		t.Logf("seed %d: held at most %d events streaming, %d holding", seed, few, most)
		// Held until the end, every event waits; streamed, about those of
		// the 3 ms the pipes lag (a round is 9 events per 5 ms).
		if most < len(lines) || seed%2 == 1 && few > 64 {
			t.Fatalf("seed %d: held at most %d events streaming, %d holding", seed, few, most)
		}
	}
}
