package sim

import (
	"bytes"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/quorum"
	"github.com/electbench/electbench/nodes/trial"
)

// A small trial keeps its timers in a table by position (timerTab), a big
// one in a map, and the two hold them alike: raft at N = 5, whose
// followers re-arm their election timers at every heartbeat, with two
// processes crashed and restarted, runs the same trace either way.
func TestTimerTableAsMap(t *testing.T) {
	a, v, err := nodes.Lookup("raft")
	if err != nil {
		t.Fatal(err)
	}
	cfg := trial.Config{Algorithm: a, Variant: v, Ranks: nodes.RanksOf(ranks(5)), Initiators: trial.AllPositions(5),
		Latency: trial.Uniform{Lo: time.Millisecond, Hi: 5 * time.Millisecond}, Seed: 3,
		Faults: []trial.Fault{{Effect: trial.EffCrash, Name: "crash", Targets: procs(0, 1),
			Start: trial.When{Trigger: trial.AtTime, At: 400 * ms}, For: 5 * ms}}}
	table, tableRes := tracedRun(t, cfg, 1<<62, 0)
	defer func(m int) { timerTabMax = m }(timerTabMax)
	timerTabMax = 0
	inMap, mapRes := tracedRun(t, cfg, 1<<62, 0)
	if !bytes.Equal(table, inMap) || tableRes.Events != mapRes.Events {
		t.Errorf("timers in a map run differently from timers in the table (%d/%d events, %d/%d trace bytes)",
			mapRes.Events, tableRes.Events, len(inMap), len(table))
	}
	if tableRes.Timeouts < 3 || !bytes.Contains(table, []byte("restart")) {
		t.Errorf("%d timeouts, restart in the trace %v: the trial compares too little", tableRes.Timeouts, bytes.Contains(table, []byte("restart")))
	}
}

// A restart voids the timers its process had armed in the map as in the
// table (TestCrashThenRestart's probe arms one that would fire after).
func TestCrashThenRestartTimersInMap(t *testing.T) {
	defer func(m int) { timerTabMax = m }(timerTabMax)
	timerTabMax = 0
	TestCrashThenRestart(t)
}
