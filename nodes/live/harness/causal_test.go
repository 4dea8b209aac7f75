package harness

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live"
)

const ms = time.Millisecond

// emitted is one event the causal order gave out: its index and place.
type emitted struct {
	i  int
	at time.Duration
}

func orderAll(c *causal, hs []held, w time.Duration) []emitted {
	var out []emitted
	c.order(hs, w, func(i int, at time.Duration) { out = append(out, emitted{i, at}) })
	return out
}

// A hand-made history on three processes whose hosts' clocks disagree:
// p0 sends m at 10 ms; p1, whose clock reads 6 ms behind, stamps m's
// receive 4 ms, and in the same step sends m' to p2 and decides; p2 stamps
// m' received at 5 ms, then a timer at 6 ms; the harness crashed someone
// at 7 ms. Ordered, each receive goes to its send's time, what followed on
// its process with it, and the harness's crash stays where it was.
func TestCausalOrderHandMade(t *testing.T) {
	hs := []held{ // sorted by stamp, then arrival
		{at: 4 * ms, seq: 2, proc: 1, send: 6},   // 0: p1 receives m
		{at: 4 * ms, seq: 3, proc: 1, send: -1},  // 1: p1 sends m'
		{at: 4 * ms, seq: 4, proc: 1, send: -1},  // 2: p1 decides
		{at: 5 * ms, seq: 6, proc: 2, send: 1},   // 3: p2 receives m'
		{at: 6 * ms, seq: 5, proc: 2, send: -1},  // 4: p2's timer
		{at: 7 * ms, seq: 7, proc: -1, send: -1}, // 5: the harness's crash
		{at: 10 * ms, seq: 1, proc: 0, send: -1}, // 6: p0 sends m
	}
	c := newCausal(3)
	// Up to 8 ms only the crash is due: the rest waits on p0's send.
	got := orderAll(c, hs, 8*ms)
	if want := []emitted{{5, 7 * ms}}; !slices.Equal(got, want) {
		t.Fatalf("up to 8ms: emitted %v, want %v", got, want)
	}
	if c.moved != (moves{}) {
		t.Fatalf("up to 8ms: moved %+v, want nothing", c.moved)
	}
	got = orderAll(newCausal(3), hs, math.MaxInt64)
	want := []emitted{{5, 7 * ms}, {6, 10 * ms}, {0, 10 * ms}, {1, 10 * ms}, {2, 10 * ms}, {3, 10 * ms}, {4, 10 * ms}}
	if !slices.Equal(got, want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
	c = newCausal(3)
	orderAll(c, hs, math.MaxInt64)
	if want := (moves{recvs: 2, others: 3, most: 6 * ms}); c.moved != want {
		t.Errorf("moved %+v, want %+v", c.moved, want)
	}
}

// A receive whose send's line is still to come holds back its process's
// later events, not the others'; a process's floor, its latest time
// emitted, carries over to the next call.
func TestCausalOrderWaits(t *testing.T) {
	hs := []held{
		{at: 1 * ms, seq: 1, proc: 0, send: -1, waits: true}, // p0 receives, its send unseen
		{at: 2 * ms, seq: 2, proc: 1, send: -1},
		{at: 3 * ms, seq: 3, proc: 0, send: -1},
	}
	c := newCausal(3)
	if got, want := orderAll(c, hs, math.MaxInt64), []emitted{{1, 2 * ms}}; !slices.Equal(got, want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
	// p1's next event, stamped before the one emitted, follows it; so
	// does p0's, after a time given to p0 (as a flush would have).
	c.floor[0] = 5 * ms
	late := []held{{at: 1 * ms, seq: 4, proc: 1, send: -1}, {at: 4 * ms, seq: 5, proc: 0, send: -1}}
	if got, want := orderAll(c, late, math.MaxInt64), []emitted{{0, 2 * ms}, {1, 5 * ms}}; !slices.Equal(got, want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
	// An event of a third process stamped before the latest time emitted
	// (as a receive that waited for a send that never came, released)
	// goes no earlier than it: the stream stays in time order.
	if got, want := orderAll(c, []held{{at: 1 * ms, seq: 6, proc: 2, send: -1}}, math.MaxInt64), []emitted{{0, 5 * ms}}; !slices.Equal(got, want) {
		t.Fatalf("emitted %v, want %v", got, want)
	}
}

// hbRun is a random history of procs processes, each on its own host,
// with messages of 1 to 5 ms: each event's true time, process, and for a
// receive the index of its send.
type hbRun struct {
	true_ []time.Duration
	proc  []int32
	send  []int32
}

func randomRun(r *rand.Rand, procs, events int) hbRun {
	var h hbRun
	clock := make([]time.Duration, procs)
	type msg struct {
		send    int32
		arrives time.Duration
	}
	inbox := make([][]msg, procs)
	for range events {
		p := r.IntN(procs)
		var send int32 = -1
		if len(inbox[p]) > 0 && r.IntN(2) == 0 {
			m := inbox[p][0]
			inbox[p] = inbox[p][1:]
			clock[p] = max(clock[p], m.arrives)
			send = m.send
		} else {
			clock[p] += time.Duration(r.IntN(3000)) * time.Microsecond
			if q := r.IntN(procs); q != p {
				arrives := clock[p] + ms + time.Duration(r.IntN(4000))*time.Microsecond
				inbox[q] = append(inbox[q], msg{int32(len(h.true_)), arrives})
			}
		}
		h.true_, h.proc, h.send = append(h.true_, clock[p]), append(h.proc, int32(p)), append(h.send, send)
	}
	return h
}

// stamped is run's events as hosts whose clocks are off by errs stamp
// them, sorted by stamp then arrival (their true order), and the index in
// run of each.
func (h hbRun) stamped(errs []time.Duration) ([]held, []int) {
	idx := make([]int, len(h.true_))
	for i := range idx {
		idx[i] = i
	}
	at := func(i int) time.Duration { return h.true_[i] + errs[h.proc[i]] }
	slices.SortStableFunc(idx, func(a, b int) int { return int(at(a) - at(b)) })
	pos := make([]int32, len(idx))
	for k, i := range idx {
		pos[i] = int32(k)
	}
	hs := make([]held, len(idx))
	for k, i := range idx {
		hs[k] = held{at: at(i), seq: uint64(i), proc: h.proc[i], send: -1}
		if s := h.send[i]; s >= 0 {
			hs[k].send = pos[s]
		}
	}
	return hs, idx
}

// Property: whatever the clocks' errors, every event is emitted once, at
// non-decreasing times, each receive no earlier than its send and each
// process's events in their order; and where every error is within a
// bound B, every place is within B of the event's true time (the row's
// clock_error_s still bounds it). Errors up to 20 ms, beyond the 1–5 ms
// delays, do put receives before their sends.
func TestCausalOrderProperty(t *testing.T) {
	const B = 20 * ms
	r := rand.New(rand.NewPCG(43, 1))
	reordered := 0
	for run := range 200 {
		procs := 2 + r.IntN(4)
		h := randomRun(r, procs, 40+r.IntN(80))
		errs := make([]time.Duration, procs)
		for p := range errs {
			errs[p] = time.Duration(r.Int64N(int64(2*B+1))) - B
		}
		hs, idx := h.stamped(errs)
		c := newCausal(procs)
		got := orderAll(c, hs, math.MaxInt64)
		if len(got) != len(hs) {
			t.Fatalf("run %d: %d of %d events emitted", run, len(got), len(hs))
		}
		placed := make([]time.Duration, len(hs))
		var last time.Duration = math.MinInt64
		for _, e := range got {
			i := idx[e.i]
			if e.at < last {
				t.Fatalf("run %d: event %d emitted at %v after %v", run, i, e.at, last)
			}
			last, placed[i] = e.at, e.at
			if d := (e.at - h.true_[i]).Abs(); d > B {
				t.Fatalf("run %d: event %d placed %v from its true time, more than the bound %v", run, i, d, B)
			}
		}
		for i, s := range h.send {
			if s >= 0 && placed[i] < placed[s] {
				t.Fatalf("run %d: receive %d placed at %v before its send %d at %v", run, i, placed[i], s, placed[s])
			}
		}
		checkProcessOrder(t, run, h, got, idx)
		reordered += int(c.moved.recvs)
	}
	if reordered == 0 {
		t.Fatal("no receive was stamped before its send: the property was never put to the test")
	}
}

// checkProcessOrder: each process's events come out in their true order.
func checkProcessOrder(t *testing.T, run int, h hbRun, got []emitted, idx []int) {
	t.Helper()
	lastOf := map[int32]int{}
	for _, e := range got {
		i := idx[e.i]
		if j, ok := lastOf[h.proc[i]]; ok && j > i {
			t.Fatalf("run %d: process %d's event %d emitted after its later event %d", run, h.proc[i], i, j)
		}
		lastOf[h.proc[i]] = i
	}
}

// Where no stamp breaks happens-before, the order is the stamps' and
// nothing moves: with one clock, or errors below every delay, the
// events go out as they would unordered.
func TestCausalOrderKeepsACausalHistory(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for run := range 50 {
		h := randomRun(r, 4, 100)
		hs, _ := h.stamped(make([]time.Duration, 4))
		c := newCausal(4)
		got := orderAll(c, hs, math.MaxInt64)
		for k, e := range got {
			if e.i != k || e.at != hs[k].at {
				t.Fatalf("run %d: emitted %d at %v as the %dth, want %d at %v", run, e.i, e.at, k, k, hs[k].at)
			}
		}
		if c.moved != (moves{}) {
			t.Fatalf("run %d: moved %+v", run, c.moved)
		}
	}
}

func stampOf(t *testing.T, line []byte) int64 {
	rep, err := live.ParseReport(line)
	if err != nil {
		t.Fatal(err)
	}
	return rep.T
}

// traceReceivesFirst counts the receives of a trace (JSON lines) that come
// before their send, failing the test on one placed before it.
func traceReceivesFirst(t *testing.T, trace string) int {
	t.Helper()
	sent := map[int64]int64{}
	first := 0
	for line := range strings.Lines(trace) {
		var e struct {
			T  int64
			Ev string
			ID int64
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("trace line %q: %v", line, err)
		}
		switch s, ok := sent[e.ID]; {
		case e.Ev == "send":
			sent[e.ID] = e.T
		case e.Ev == "recv" && !ok:
			first++
		case e.Ev == "recv" && e.T < s:
			t.Fatalf("message %d received at %d, sent at %d", e.ID, e.T, s)
		}
	}
	return first
}

// A clocked trial's step lines, with node 0's clock 8 ms behind (each
// heartbeat it receives stamped 2.9 ms before its send), fed in random
// interleavings of the nodes' lines: no receive precedes its send in the
// trace, and the trace streamed (16 events held at a time) is the one
// held to the end, byte for byte, as TestStreamedIsHeld asks of one
// clock. Ordered by the stamps alone (causalOrder off), receives precede
// their sends.
func TestCausalStreamedIsHeld(t *testing.T) {
	lines, senders := raftRounds(20, true)
	stamp := regexp.MustCompile(`"t":(\d+)`)
	for i, l := range lines {
		if senders[i] == 0 {
			lines[i] = stamp.ReplaceAllFunc(l, func(m []byte) []byte {
				v, _ := strconv.ParseInt(string(m[4:]), 10, 64)
				return fmt.Appendf(nil, `"t":%d`, v-int64(8*ms))
			})
		}
	}
	byNode := map[int][]int{}
	for i := range lines {
		byNode[senders[i]] = append(byNode[senders[i]], i)
	}
	for _, idx := range byNode { // each node's lines in its clock's order
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(stampOf(t, lines[a]), stampOf(t, lines[b])) })
	}
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 43))
		var order []int
		queues := maps.Clone(byNode)
		for len(order) < len(lines) {
			p := r.IntN(5)
			if q := queues[p]; len(q) > 0 {
				order, queues[p] = append(order, q[0]), q[1:]
			}
		}
		held, _, _ := streamRun(t, 1<<30, order, lines, senders, true)
		streamed, res, _ := streamRun(t, 16, order, lines, senders, true)
		if streamed != held {
			hl, sl := strings.Split(held, "\n"), strings.Split(streamed, "\n")
			for i := range min(len(hl), len(sl)) {
				if hl[i] != sl[i] {
					t.Fatalf("seed %d: the streamed trace differs from the held one at line %d:\n%s\n%s", seed, i, strings.Join(hl[max(0, i-3):i+3], "\n"), strings.Join(sl[max(0, i-3):i+3], "\n"))
				}
			}
			t.Fatalf("seed %d: the streamed trace differs from the held one: %d and %d lines", seed, len(hl), len(sl))
		}
		if n := traceReceivesFirst(t, streamed); n != 0 {
			t.Fatalf("seed %d: %d receives before their sends", seed, n)
		}
		if got := res.MessagesByKind(); got["HEARTBEAT"] != 80 || got["HEARTBEAT_ACK"] != 80 {
			t.Fatalf("seed %d: %v, want 80 of each", seed, got)
		}
		old := causalOrder
		causalOrder = false
		unordered, _, _ := streamRun(t, 16, order, lines, senders, true)
		causalOrder = old
		if n := traceReceivesFirst(t, unordered); n == 0 {
			t.Fatalf("seed %d: ordered by stamps, no receive preceded its send: node 0's clock did not show", seed)
		}
	}
}
