package sim

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

const ms = time.Millisecond

// stream is a test algorithm: told to initiate, process 0 sends count
// messages to process 1 (A = 1..count), one every gap; every delivery is
// logged as "A@time".
func stream(log *[]string, count int, gap time.Duration) *nodes.Algorithm {
	sent := 0
	return algo(log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch ev {
		case "initiate", "timeout:WAIT":
			sent++
			env.Send(1, nodes.Message{Kind: kPing, A: int64(sent)})
			if sent < count {
				env.SetTimer(gap, tWait)
			}
		case "recv":
			*log = append(*log, fmt.Sprintf("%d@%v", m.A, env.Now()))
		}
	})
}

func runFaults(t *testing.T, a *nodes.Algorithm, n int, lat trial.Latency, seed uint64, faults ...trial.Fault) *trial.Record {
	t.Helper()
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(n)), Initiators: []int{0}, Latency: lat, Seed: seed, Faults: faults})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func every(v trial.View) trial.LinkSet {
	return trial.LinkSet{Has: func(int, int) bool { return true }, Text: "all"}
}

func link(from, to int) func(trial.View) trial.LinkSet {
	return func(trial.View) trial.LinkSet {
		return trial.LinkSet{Has: func(f, t int) bool { return f == from && t == to }, Text: fmt.Sprintf("%d>%d", from, to)}
	}
}

func procs(ps ...int) func(trial.View) []int { return func(trial.View) []int { return ps } }

func schedule(res *trial.Record) string {
	var out []string
	for _, e := range res.Faults {
		out = append(out, e.String())
	}
	return strings.Join(out, " ")
}

// A cut loses what is sent while it holds and what is in flight when it
// starts; it heals after For.
func TestCutLosesSentAndInFlight(t *testing.T) {
	var log []string
	res := runFaults(t, stream(&log, 6, ms), 2, trial.Constant(ms), 1,
		trial.Fault{Link: trial.Cut{}, Name: "partition(halves)", Links: link(0, 1), Start: trial.When{Trigger: trial.AtTime, At: 2*ms + ms/2}, For: 2 * ms})
	// Sent at 0..5ms, due 1..6ms. The cut holds over [2.5ms, 4.5ms): the
	// message sent at 2ms (in flight) and those sent at 3ms and 4ms are lost.
	if strings.Join(log, " ") != "1@1ms 2@2ms 6@6ms" || res.Lost != 3 || res.Messages != 6 {
		t.Fatalf("delivered %q, lost %d, messages %d", log, res.Lost, res.Messages)
	}
	if got := schedule(res); got != "t=2.5ms:partition(halves)[0>1] t=4.5ms:heal partition(halves)" {
		t.Fatalf("schedule %q", got)
	}
}

// A one-way cut loses one direction only.
func TestOneWayCut(t *testing.T) {
	var log []string
	a := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch ev {
		case "initiate":
			env.Send(1, nodes.Message{Kind: kPing})
		case "recv":
			log = append(log, fmt.Sprintf("%v<%d", env.Self(), from))
			if m.Kind == kPing {
				env.Send(from, nodes.Message{Kind: kPong})
			}
		}
	})
	res := runFaults(t, a, 2, trial.Constant(ms), 1, trial.Fault{Link: trial.Cut{}, Links: link(1, 0)})
	if strings.Join(log, " ") != "2<0" || res.Lost != 1 {
		t.Fatalf("log %q lost %d", log, res.Lost)
	}
}

// Extra latency and jitter: each message takes T + latency ± jitter, and
// the link stays FIFO.
func TestDelayAndJitterKeepFIFO(t *testing.T) {
	var log []string
	res := runFaults(t, stream(&log, 50, ms/10), 2, trial.Constant(ms), 3,
		trial.Fault{Link: trial.Delay{Latency: 4 * ms, Jitter: 2 * ms}, Links: every})
	if len(log) != 50 || res.Lost != 0 {
		t.Fatalf("delivered %d", len(log))
	}
	last := time.Duration(0)
	for i, e := range log {
		var a int
		var at time.Duration
		num, when, _ := strings.Cut(e, "@")
		fmt.Sscan(num, &a)
		at, _ = time.ParseDuration(when)
		sent := time.Duration(i) * ms / 10
		if a != i+1 || at < last || at-sent < 3*ms || at-sent > 7*ms {
			t.Fatalf("delivery %d: %s (sent %v): out of order or outside T+4ms±2ms", i, e, sent)
		}
		last = at
	}
}

// Bandwidth: a message waits for the link to carry the earlier ones, at
// Rate bytes per second.
func TestBandwidthSerializes(t *testing.T) {
	var log []string
	size := int64(nodes.Message{Kind: kPing, A: 1}.EncodedSize())
	// Rate: one message per ms. Three sent at once arrive 1ms apart.
	res := runFaults(t, stream(&log, 3, 0), 2, trial.Constant(ms), 1, trial.Fault{Link: trial.Bandwidth{Rate: size * 1000}, Links: every})
	if got := strings.Join(log, " "); got != "1@2ms 2@3ms 3@4ms" || res.Lost != 0 {
		t.Fatalf("delivered %q", got)
	}
}

// Slicer: a message of S bytes in slices of k bytes is delayed by
// (⌈S/k⌉−1) slice delays.
func TestSlicerDelaysBySlices(t *testing.T) {
	var log []string
	size := int64(nodes.Message{Kind: kPing, A: 1}.EncodedSize())
	runFaults(t, stream(&log, 1, 0), 2, trial.Constant(ms), 1, trial.Fault{Link: trial.Slice{Size: 1, Delay: ms}, Links: every})
	if want := fmt.Sprintf("1@%v", ms+time.Duration(size-1)*ms); strings.Join(log, " ") != want {
		t.Fatalf("delivered %q, want %q (%d bytes)", log, want, size)
	}
}

// Loss with probability p: the same messages for the same seed, others for
// another; p = 1 loses everything. The draws come from the fault stream.
func TestLossIsSeeded(t *testing.T) {
	lossy := func(seed uint64, p float64) ([]string, *trial.Record) {
		var log []string
		res := runFaults(t, stream(&log, 200, ms/10), 2, trial.Constant(ms), seed, trial.Fault{Link: trial.Loss{P: p}, Links: every})
		return log, res
	}
	a, ra := lossy(1, 0.5)
	b, _ := lossy(1, 0.5)
	c, _ := lossy(2, 0.5)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Fatal("loss is not a function of the seed")
	}
	if ra.Lost < 60 || ra.Lost > 140 || int(ra.Lost)+len(a) != 200 {
		t.Fatalf("p=0.5 lost %d of 200, delivered %d", ra.Lost, len(a))
	}
	if all, r := lossy(1, 1); len(all) != 0 || r.Lost != 200 {
		t.Fatalf("p=1 delivered %d", len(all))
	}
}

// A fault on one link does not change the latencies drawn for the others:
// fault draws come from their own stream.
func TestFaultDrawsLeaveNetworkStreamAlone(t *testing.T) {
	run := func(faults ...trial.Fault) []string {
		var log []string
		res, err := Run(trial.Config{Algorithm: stream(&log, 30, ms/10), Ranks: nodes.RanksOf(ranks(3)), Initiators: []int{0},
			Latency: trial.Uniform{Lo: ms, Hi: 3 * ms}, Seed: 9, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		_ = res
		return log
	}
	clean := run()
	withLoss := run(trial.Fault{Link: trial.Loss{P: 0.5}, Links: link(2, 0)})
	if !slices.Equal(clean, withLoss) {
		t.Fatalf("a fault on an idle link changed the deliveries:\n%q\n%q", clean, withLoss)
	}
}

// Duplication with p = 1 delivers every message twice, at the same time.
func TestDuplicate(t *testing.T) {
	var log []string
	res := runFaults(t, stream(&log, 3, ms), 2, trial.Constant(ms), 1, trial.Fault{Link: trial.Duplication{P: 1}, Links: every})
	if got := strings.Join(log, " "); got != "1@1ms 1@1ms 2@2ms 2@2ms 3@3ms 3@3ms" || res.Duplicated != 3 || res.Messages != 3 {
		t.Fatalf("delivered %q, duplicated %d", got, res.Duplicated)
	}
}

// Reordering: a held-back message does not hold back the later ones, so
// under constant latency some messages overtake others.
func TestReorderLetsMessagesOvertake(t *testing.T) {
	var log []string
	runFaults(t, stream(&log, 100, ms/10), 2, trial.Constant(ms), 4, trial.Fault{Link: trial.Reordering{P: 0.3, Hold: 2 * ms}, Links: every})
	if len(log) != 100 {
		t.Fatalf("delivered %d", len(log))
	}
	inversions := 0
	for i := 1; i < len(log); i++ {
		var a, b int
		fmt.Sscanf(log[i-1], "%d@", &a)
		fmt.Sscanf(log[i], "%d@", &b)
		if b < a {
			inversions++
		}
	}
	if inversions == 0 {
		t.Fatal("no message overtook another")
	}
}

// A data limit closes the link after K bytes: the message that crosses the
// limit and everything after it is lost until the fault heals.
func TestDataLimit(t *testing.T) {
	var log []string
	size := int64(nodes.Message{Kind: kPing, A: 1}.EncodedSize())
	res := runFaults(t, stream(&log, 6, ms), 2, trial.Constant(ms), 1,
		trial.Fault{Link: trial.DataLimit{Bytes: 2 * size}, Links: every, Start: trial.When{Trigger: trial.AtStart}, For: 4*ms + ms/2})
	if got := strings.Join(log, " "); got != "1@1ms 2@2ms 6@6ms" || res.Lost != 3 {
		t.Fatalf("delivered %q lost %d", got, res.Lost)
	}
}

// A per-link latency model replaces the run's on that link only.
func TestLinkLatencyOverride(t *testing.T) {
	var log []string
	runFaults(t, stream(&log, 2, ms), 2, trial.Constant(ms), 1, trial.Fault{Link: trial.LinkModel{Model: trial.Constant(5 * ms)}, Links: link(0, 1)})
	if got := strings.Join(log, " "); got != "1@5ms 2@6ms" {
		t.Fatalf("delivered %q", got)
	}
}

// Toxicity: a share of the links is affected, the same ones for a seed.
func TestToxicityPicksLinks(t *testing.T) {
	var log []string
	a := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch ev {
		case "start":
			for _, q := range env.Peers() {
				if q.Rank != env.Self() {
					env.Send(q.ID, nodes.Message{Kind: kPing})
				}
			}
		}
	})
	lost := func(seed uint64) int64 {
		res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(20)), Latency: trial.Constant(ms), Seed: seed,
			Faults: []trial.Fault{{Link: trial.Cut{}, Links: every, Toxicity: 0.25}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Lost
	}
	if l := lost(1); l < 60 || l > 130 || l != lost(1) {
		t.Fatalf("toxicity 0.25 of 380 links cut %d", l)
	}
}

// Pause: messages to a paused process wait for it, its timers fire late,
// and it handles everything in order when it resumes.
func TestPauseHoldsEventsUntilResume(t *testing.T) {
	var log []string
	a := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch {
		case ev == "start" && env.Self() == nodes.RankOf(2):
			env.SetTimer(2*ms, tWait)
		case ev == "initiate":
			env.Send(1, nodes.Message{Kind: kPing})
		case ev == "recv" || ev == "timeout:WAIT":
			log = append(log, fmt.Sprintf("%v:%s@%v", env.Self(), ev, env.Now()))
		}
	})
	res := runFaults(t, a, 2, trial.Constant(ms), 1, trial.Fault{Effect: trial.EffPause, Targets: procs(1), Start: trial.When{Trigger: trial.AtTime, At: ms / 2}, For: 5 * ms})
	if got := strings.Join(log, " "); got != "2:recv@5.5ms 2:timeout:WAIT@5.5ms" {
		t.Fatalf("log %q", got)
	}
	if got := schedule(res); got != "t=500µs:pause(1) t=5.5ms:resume(1)" {
		t.Fatalf("schedule %q", got)
	}
}

// A paused process falls silent: the heartbeat detector suspects it
// although it never crashed.
func TestPausedProcessIsSuspectedByHeartbeats(t *testing.T) {
	_, log := runLog(t, trial.Config{Initiators: []int{0}, Detector: trial.Detector{Kind: "heartbeat", P: ms, Tau: 3 * ms},
		Faults: []trial.Fault{{Effect: trial.EffPause, Targets: procs(3), Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}, For: 20 * ms}}})
	if strings.Count(log, ">4@") != 3 {
		t.Fatalf("suspicions of the paused process: %q", log)
	}
}

// Crash for a while, then restart: a fresh machine with the same rank boots
// again, knows no leader, and its old timers never fire.
func TestCrashThenRestart(t *testing.T) {
	var log []string
	var obs recorder
	a := algo(&log, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch {
		case ev == "start":
			log = append(log, fmt.Sprintf("start %v@%v", env.Self(), env.Now()))
			if env.Self() == nodes.RankOf(2) && env.Now() == 0 {
				env.Decide(env.Self())
				env.SetTimer(3*ms, tWait)
			}
		case ev == "timeout:WAIT":
			log = append(log, "old timer fired")
		}
	})
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(2)), Latency: trial.Constant(ms), Events: &obs,
		Faults: []trial.Fault{{Effect: trial.EffCrash, Name: "crash", Targets: procs(1), Start: trial.When{Trigger: trial.AtTime, At: ms}, For: ms}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(log, " "); got != "start 1@0s start 2@0s start 2@2ms" {
		t.Fatalf("log %q", got)
	}
	if !res.Alive[1] || res.Decisions.Get(1).Count != 0 || len(res.Crashes) != 1 {
		t.Fatalf("alive %v decisions %+v crashes %+v", res.Alive, res.Decisions, res.Crashes)
	}
	if got := schedule(res); got != "t=1ms:crash(1) t=2ms:restart(1)" {
		t.Fatalf("schedule %q", got)
	}
}

// Triggers: election-start (the first initiation), leader-elected (the
// first decision) and after-messages, each with a delay; targets resolve
// when the fault starts, so "the leader" is whoever was decided.
func TestTriggersAndDynamicTargets(t *testing.T) {
	a := algo(nil, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch ev {
		case "initiate":
			env.Send(1, nodes.Message{Kind: kPing})
			env.Send(2, nodes.Message{Kind: kPing})
		case "recv":
			env.Decide(nodes.RankOf(2))
		}
	})
	leader := func(v trial.View) []int { return []int{v.Leader()} }
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(3)), Initiators: []int{0}, Latency: trial.Constant(ms),
		Faults: []trial.Fault{
			{Link: trial.Mark{}, Name: "mark-start", Links: every, Start: trial.When{Trigger: trial.ElectionStart, Delay: ms / 4}},
			{Link: trial.Mark{}, Name: "mark-msgs", Links: every, Start: trial.When{Trigger: trial.AfterMessages, K: 2}},
			{Effect: trial.EffCrash, Name: "crash", Targets: leader, Start: trial.When{Trigger: trial.LeaderElected, Delay: ms}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	want := "t=0s:mark-msgs[all] t=250µs:mark-start[all] t=2ms:crash(1)"
	if got := schedule(res); got != want {
		t.Fatalf("schedule %q, want %q", got, want)
	}
}

// A false suspicion: the observers' detectors suspect a live process once.
func TestSuspectEffect(t *testing.T) {
	_, log := runLog(t, trial.Config{Initiators: []int{0},
		Faults: []trial.Fault{{Effect: trial.EffSuspect, Targets: procs(3), Observers: procs(0, 1), Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}}}})
	if !strings.Contains(log, "1>4@2ms") || !strings.Contains(log, "2>4@2ms") || strings.Count(log, ">") != 2 {
		t.Fatalf("log %q", log)
	}
}

// A heal at a trigger ends a fault; a heal before the start cancels it.
func TestHealAtTriggerAndBeforeStart(t *testing.T) {
	var log []string
	res := runFaults(t, stream(&log, 4, ms), 2, trial.Constant(ms), 1,
		trial.Fault{Link: trial.Cut{}, Name: "a", Links: every, End: &trial.When{Trigger: trial.AfterMessages, K: 2}},
		trial.Fault{Link: trial.Cut{}, Name: "b", Links: every, Start: trial.When{Trigger: trial.AtTime, At: 10 * ms}, End: &trial.When{Trigger: trial.AtTime, At: 5 * ms}})
	if got := schedule(res); got != "t=0s:a[all] t=1ms:heal a" {
		t.Fatalf("schedule %q", got)
	}
	// The heal follows the handler that sent the second message, so that
	// message is still lost.
	if got := strings.Join(log, " "); got != "3@3ms 4@4ms" {
		t.Fatalf("delivered %q", got)
	}
}

// A fault that changes nothing leaves the run exactly as without faults:
// the fault machinery itself draws nothing and reorders nothing.
func TestInertFaultChangesNothing(t *testing.T) {
	for _, lat := range []trial.Latency{trial.Constant(ms), trial.Uniform{Lo: ms, Hi: 4 * ms}} {
		run := func(faults ...trial.Fault) string {
			var buf bytes.Buffer
			tr := trial.NewTrace(&buf)
			res, err := Run(trial.Config{Algorithm: gossip(), Ranks: nodes.RanksOf(ranks(12)), Initiators: []int{0, 4, 7}, Latency: lat, Seed: 5, Faults: faults, Events: tr})
			if err != nil {
				t.Fatal(err)
			}
			if err := tr.Flush(); err != nil {
				t.Fatal(err)
			}
			var keep []string
			for _, l := range strings.Split(buf.String(), "\n") {
				if !strings.Contains(l, `"ev":"fault"`) {
					keep = append(keep, l)
				}
			}
			return fmt.Sprint(res.Messages, res.End, res.Decisions, strings.Join(keep, "\n"))
		}
		if a, b := run(), run(trial.Fault{Link: trial.Mark{}, Links: every}); a != b {
			t.Fatalf("%v: an inert fault changed the run", lat)
		}
	}
}

func TestFaultValidation(t *testing.T) {
	for _, f := range []trial.Fault{
		{Link: trial.Cut{}},
		{Effect: trial.EffCrash},
		{Link: trial.Loss{P: 2}, Links: every},
		{Link: trial.Bandwidth{}, Links: every},
		{Link: trial.Cut{}, Links: every, Toxicity: -1},
		{Link: trial.Cut{}, Links: every, Start: trial.When{Trigger: trial.AfterMessages}},
		{Link: trial.Slice{Size: 2, Variation: 2}, Links: every},
		{Link: trial.LinkModel{}, Links: every},
		{Effect: 99, Links: every},
	} {
		if _, err := Run(trial.Config{Algorithm: gossip(), Ranks: nodes.RanksOf(ranks(3)), Latency: trial.Constant(ms), Faults: []trial.Fault{f}}); err == nil {
			t.Errorf("fault %+v accepted", f)
		}
	}
}

// Healing a crash restarts only what that crash stopped.
func TestHealRestartsOnlyItsOwnCrash(t *testing.T) {
	res := runFaults(t, gossip(), 3, trial.Constant(ms), 1,
		trial.Fault{Effect: trial.EffCrash, Name: "crash", Targets: procs(1), Start: trial.When{Trigger: trial.AtTime, At: ms}},
		trial.Fault{Effect: trial.EffCrash, Name: "crash", Targets: procs(1, 2), Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}, For: ms})
	if got := schedule(res); got != "t=1ms:crash(1) t=2ms:crash(2) t=3ms:restart(2)" || res.Alive[1] || !res.Alive[2] {
		t.Fatalf("schedule %q alive %v", got, res.Alive)
	}
}

// A slow process is a single server: each step it takes costs the service
// time, after the steps queued before it. Process 1 receives at 1, 2, 3
// and 4ms (T = 1ms, a message every 1ms) and takes 3ms a step: it handles
// them at 1+3 = 4ms, then 4+3 = 7, 10 and 13ms. Healed at 8ms, the steps
// already queued keep their times.
func TestSlowProcessIsASingleServer(t *testing.T) {
	var log []string
	res := runFaults(t, stream(&log, 6, ms), 2, trial.Constant(ms), 1,
		trial.Fault{Effect: trial.EffSlow, Service: 3 * ms, Targets: procs(1), For: 8 * ms})
	// Arrivals 5 and 6 (at 5ms and 6ms) were queued before the heal at 8ms,
	// behind the fourth: 16 and 19ms.
	if got := strings.Join(log, " "); got != "1@4ms 2@7ms 3@10ms 4@13ms 5@16ms 6@19ms" {
		t.Fatalf("delivered %q", got)
	}
	if got := schedule(res); got != "t=0s:slow(1) t=8ms:heal slow" {
		t.Fatalf("schedule %q", got)
	}
	var after []string
	runFaults(t, stream(&after, 3, 2*ms), 2, trial.Constant(ms), 1,
		trial.Fault{Effect: trial.EffSlow, Service: 3 * ms, Targets: procs(1), For: ms / 2})
	if got := strings.Join(after, " "); got != "1@1ms 2@3ms 3@5ms" {
		t.Fatalf("healed before its first step, delivered %q", got)
	}
}

// A slow process paused keeps its queue's order, as a live node stopped
// by SIGSTOP does (chaos's slow kind, Sim): process 1 (3ms a step)
// receives at 1, 2, 3 and 4ms and queues them to end at 4, 7, 10 and
// 13ms; paused from 4.5ms to 9.5ms, it handles the second, whose service
// ended during the pause, at the resumption (9.5ms), the third and
// fourth at their times, and the messages that arrived during the pause
// (5 and 6ms) only then enter its queue, behind the fourth: 16 and 19ms.
// No step is served twice, and none overtakes another.
func TestSlowProcessPausedKeepsItsOrder(t *testing.T) {
	var log []string
	runFaults(t, stream(&log, 6, ms), 2, trial.Constant(ms), 1,
		trial.Fault{Effect: trial.EffSlow, Service: 3 * ms, Targets: procs(1)},
		trial.Fault{Effect: trial.EffPause, Targets: procs(1), Start: trial.When{Trigger: trial.AtTime, At: 4*ms + ms/2}, For: 5 * ms})
	if got := strings.Join(log, " "); got != "1@4ms 2@9.5ms 3@10ms 4@13ms 5@16ms 6@19ms" {
		t.Fatalf("delivered %q", got)
	}
	// A timer's step likewise: process 1's timer fires at 1ms, its
	// service ends at 4ms, during a pause from 2ms to 6ms: handled at 6ms,
	// not served again (9ms).
	var timed []string
	a := algo(&timed, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch {
		case ev == "start" && env.Self() == nodes.RankOf(2):
			env.SetTimer(ms, tWait)
		case ev == "timeout:WAIT":
			timed = append(timed, fmt.Sprintf("%v@%v", env.Self(), env.Now()))
		}
	})
	runFaults(t, a, 2, trial.Constant(ms), 1,
		trial.Fault{Effect: trial.EffSlow, Service: 3 * ms, Targets: procs(1)},
		trial.Fault{Effect: trial.EffPause, Targets: procs(1), Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}, For: 4 * ms})
	if got := strings.Join(timed, " "); got != "2@6ms" {
		t.Fatalf("timer handled %q", got)
	}
}

// lcr on a ring of 4 (ranks 1..4 in ring order, T = 1ms): the leader's
// ELECTION(4) goes round in 4T, its ELECTED in 4T more, so the last
// election message arrives at 8ms. Slow process 0 (service 3ms) handles
// two steps of that chain, each when it is idle: 8 + 2·3 = 14ms. Slow
// process 1 is busy with ELECTION(1) until 1+3 = 4ms when ELECTION(4)
// arrives at 2ms, so that one waits 2ms in its queue: 8 + 2·3 + 2 = 16ms.
func TestSlowProcessDelaysLCRByItsSteps(t *testing.T) {
	alg, _, err := nodes.Lookup("lcr")
	if err != nil {
		t.Fatal(err)
	}
	run := func(faults ...trial.Fault) *trial.Record {
		res, err := Run(trial.Config{Algorithm: alg, Ranks: nodes.RanksOf(ranks(4)), Latency: trial.Constant(ms), Seed: 1, Faults: faults})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	slow := func(p int) trial.Fault {
		return trial.Fault{Effect: trial.EffSlow, Service: 3 * ms, Targets: procs(p)}
	}
	for _, c := range []struct {
		name   string
		faults []trial.Fault
		last   time.Duration
	}{{"fault-free", nil, 8 * ms}, {"slow 0", []trial.Fault{slow(0)}, 14 * ms}, {"slow 1", []trial.Fault{slow(1)}, 16 * ms}} {
		res := run(c.faults...)
		decided := 0
		for _, d := range res.Decisions.List() {
			if d.Leader == nodes.RankOf(4) {
				decided++
			}
		}
		if res.LastElection != c.last || decided != 4 {
			t.Errorf("%s: last election message at %v, want %v; %d decided 4", c.name, res.LastElection, c.last, decided)
		}
	}
}

// Loss of p = 1 on one direction of one link is a one-way cut of it: the
// same messages delivered and lost, the same leader and times.
func TestLossOfOneIsAOneWayCut(t *testing.T) {
	alg, _, err := nodes.Lookup("lcr")
	if err != nil {
		t.Fatal(err)
	}
	run := func(e trial.Shaping) (*trial.Record, string) {
		ev := trial.NewTranscript("lcr", "default", nil, ranks(4), ms)
		res, err := Run(trial.Config{Algorithm: alg, Ranks: nodes.RanksOf(ranks(4)), Latency: trial.Constant(ms), Seed: 1,
			Events: ev, Faults: []trial.Fault{{Link: e, Name: "f", Links: link(2, 3), Start: trial.When{Trigger: trial.AtTime, At: 3 * ms}}}})
		if err != nil {
			t.Fatal(err)
		}
		return res, ev.String()
	}
	cut, cutLog := run(trial.Cut{})
	loss, lossLog := run(trial.Loss{P: 1})
	if cutLog != lossLog || cut.Lost != loss.Lost || cut.Lost == 0 || cut.Messages != loss.Messages || cut.LastElection != loss.LastElection {
		t.Fatalf("cut: lost %d, %d messages\n%s\nloss: lost %d, %d messages\n%s", cut.Lost, cut.Messages, cutLog, loss.Lost, loss.Messages, lossLog)
	}
}

// A slow process keeps heartbeating: where a pause of 20ms gets it
// suspected by the three others (TestPausedProcessIsSuspectedByHeartbeats),
// a slowness of 5ms a step for as long does not, since its detector
// answers pings at once. The message process 0 sends it at initiation
// arrives at 1ms and is handled at 1 + 5 = 6ms.
func TestSlowProcessKeepsHeartbeating(t *testing.T) {
	_, log := runLog(t, trial.Config{Initiators: []int{0}, Detector: trial.Detector{Kind: "heartbeat", P: ms, Tau: 3 * ms},
		Faults: []trial.Fault{{Effect: trial.EffSlow, Service: 5 * ms, Targets: procs(3), For: 20 * ms}}})
	if strings.Count(log, ">4@") != 0 || !strings.Contains(log, "recv@4 6ms") {
		t.Fatalf("a slow process suspected, or its step not late: %q", log)
	}
}

// A slow process's own heartbeat suspicion is a step of its own: it waits
// in its queue. Process 0 crashes at 2ms (heartbeat(1ms,3ms)): the last
// PING_ACK from it arrives at 2ms, so every observer suspects it at the
// tick at 6ms; slow process 3 (5ms a step) is busy until 6ms with the
// message 0 sent it at 1ms, and suspects at 6 + 5 = 11ms.
func TestSlowProcessSuspectsLate(t *testing.T) {
	_, log := runLog(t, trial.Config{Initiators: []int{0}, Detector: trial.Detector{Kind: "heartbeat", P: ms, Tau: 3 * ms},
		Faults: []trial.Fault{
			{Effect: trial.EffSlow, Service: 5 * ms, Targets: procs(3)},
			{Effect: trial.EffCrash, Targets: procs(0), Start: trial.When{Trigger: trial.AtTime, At: 2 * ms}},
		}})
	if got := strings.Join(slices.DeleteFunc(strings.Fields(log), func(s string) bool { return !strings.Contains(s, ">1@") }), " "); got != "2>1@6ms 3>1@6ms 4>1@11ms" {
		t.Fatalf("suspicions of the crashed process %q (log %q)", got, log)
	}
}

// sendSink wants the sends of one kind only (trial.SendFilter).
type sendSink struct {
	only nodes.Kind
	got  map[string]int
}

func (s *sendSink) Kinds() trial.Kinds          { return trial.KindsOf(trial.EvSend) }
func (s *sendSink) WantsSend(k nodes.Kind) bool { return k == s.only }
func (s *sendSink) Event(e *trial.Event)        { s.got[e.Msg.Kind.String()]++ }

// A sink that wants the sends of one kind (a checker counting bully's
// elections: ELECTION) is given those and no others, every one of them.
func TestSendFilterLeavesOutOtherKinds(t *testing.T) {
	alg, _, err := nodes.Lookup("bully")
	if err != nil {
		t.Fatal(err)
	}
	election, ok := nodes.KindByName("ELECTION")
	if !ok {
		t.Fatal("no ELECTION kind")
	}
	s := &sendSink{only: election, got: map[string]int{}}
	res, err := Run(trial.Config{Algorithm: alg, Ranks: nodes.RanksOf(ranks(6)), Initiators: []int{0}, Latency: trial.Constant(ms), Seed: 1, Events: s})
	if err != nil {
		t.Fatal(err)
	}
	if want := res.MessagesByKind()["ELECTION"]; len(s.got) != 1 || s.got["ELECTION"] != int(want) || want == 0 {
		t.Fatalf("sends given %v, want only the %d ELECTION", s.got, want)
	}
}
