package harness

import (
	"fmt"
	"testing"
	"time"

	"github.com/electbench/electbench/chaos/toxi"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/live"
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
			r := &Runtime{client: toxi.NewClient("http://127.0.0.1:1")}
			b.ReportAllocs()
			for range b.N {
				c := check.New(ranks)
				if err := c.WatchQuorum(alg, nodes.Config{Variant: variant, N: n, T: 10 * time.Millisecond}); err != nil {
					b.Fatal(err)
				}
				cfg := trial.Config{Algorithm: alg, Variant: variant, Ranks: ranks, Latency: trial.Constant(5 * time.Millisecond), Events: c}
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
				c.Finish(res.Decisions, res.Quiescent, res.End)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
		})
	}
}

// running is a trial as setup leaves it, with no processes behind it.
func running(r *Runtime, cfg trial.Config, ranks []nodes.Rank) *liveTrial {
	n := len(ranks)
	lt := newLiveTrial(r, cfg, faults{}, 1)
	all := make([]*proc, n)
	for i := range all {
		all[i] = &proc{pos: i, idx: i, stdin: discard{}}
	}
	lt.procs.byPos, lt.procs.all = all, all
	lt.ranks, lt.res.Ranks = ranks, ranks
	lt.alive, lt.paused, lt.gone, lt.refused = make([]bool, n), make([]bool, n), make([]bool, n), make([]bool, n)
	for i := range lt.alive {
		lt.alive[i] = true
	}
	lt.armed, lt.expect = make([]int, n), make([]int, n)
	lt.log = newEventLog(n, &lt.cfg, lt.T, lt.det)
	lt.res.Sent, lt.res.Received, lt.res.Dropped = newCounts(), newCounts(), newCounts()
	lt.res.DeliveredFrom = make([]int64, n)
	lt.res.Stats = make([]*live.Stats, n)
	lt.started, lt.start = true, time.Now()
	lt.recount()
	return lt
}

// discard is the stdin of a process that is not there: commands vanish.
type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) Close() error                { return nil }
