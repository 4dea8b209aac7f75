package workloads

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/electbench/electbench/reports"
)

// rowsOf runs trials, parallel at once, and returns their rows, failing on
// a trial that could not run.
func rowsOf(t *testing.T, trials []Trial, parallel int) []reports.Row {
	t.Helper()
	var rows []reports.Row
	if err := (&Executor{Parallel: parallel}).Execute(context.Background(), trials, func(r reports.Row) error {
		rows = append(rows, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Error != "" {
			t.Fatalf("%s: %s/%s N=%d trial %d failed to run: %s", r.Scenario, r.Algorithm, r.Variant, r.Nodes, r.Trial, r.Error)
		}
	}
	return rows
}

// withoutSteadyTraffic is the CSV of rows with the columns of steady
// traffic blanked: what a quorum trial sends and fires once its election
// is over (every message kind, bytes, every timer kind) and the events
// processed.
func withoutSteadyTraffic(t *testing.T, rows []reports.Row) []string {
	t.Helper()
	rows = append([]reports.Row(nil), rows...)
	for i := range rows {
		rows[i].MessagesByKind, rows[i].TimeoutsByKind = nil, nil
		rows[i].Bytes, rows[i].Events = 0, 0
	}
	var buf bytes.Buffer
	if err := reports.WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	return strings.Split(buf.String(), "\n")
}

// The settling rule (trial.Settling) ends a quorum trial before its
// deadline only where nothing the election's columns count comes after:
// every row, faults and all, equals the row of the same trial run to its
// deadline (Spec.KeepRunning) but for the steady traffic's columns; and
// the rule does end the trials it can, with fewer events.
func TestSettlingChangesOnlySteadyTraffic(t *testing.T) {
	const quorum = "raft,chubby,zookeeper,etcd-raft"
	specs := map[string]*Spec{
		"constant": spec(t, quorum, "3,4,7,16", "random", "lowest", "1ms", 3),
		"uniform":  spec(t, quorum, "5,8", "random", "lowest", "uniform(1ms,5ms)", 3),
	}
	crash := spec(t, quorum, "5,9", "random", "lowest", "uniform(1ms,5ms)", 3)
	for _, c := range []string{"leader@leader-elected", "random(1)@30T"} {
		cs, err := ParseCrash(c)
		if err != nil {
			t.Fatal(err)
		}
		crash.Crashes = append(crash.Crashes, cs)
	}
	specs["crashes"] = crash
	// A latency without a largest delay: the rule does not apply.
	specs["normal"] = spec(t, "raft", "5", "random", "lowest", "normal(5ms,1ms)", 2)
	for _, name := range []string{"quorum-halves", "quorum-flapping", "quorum-leader-crash", "quorum-paused-leader", "etcd-majorities-ring"} {
		for i, s := range builtinSpecs(t, name) {
			s.Trials = 2
			specs[name+"/"+string(rune('a'+i))] = s
		}
	}
	ended := map[string]string{
		"constant": "all", "uniform": "all", "normal": "none",
		"quorum-halves/a": "none", "etcd-majorities-ring/a": "none",
	}
	for name, s := range specs {
		var keep Spec = *s
		keep.KeepRunning = true
		settled, full := rowsOf(t, s.Plan(), 2), rowsOf(t, keep.Plan(), 2)
		if len(settled) != len(full) || len(settled) == 0 {
			t.Fatalf("%s: %d rows settled, %d run to the deadline", name, len(settled), len(full))
		}
		a, b := withoutSteadyTraffic(t, settled), withoutSteadyTraffic(t, full)
		for i := range a {
			if a[i] != b[i] {
				t.Errorf("%s: a settled row differs from the row run to the deadline beyond steady traffic:\n settled: %s\n deadline: %s", name, a[i], b[i])
			}
		}
		shorter := 0
		for i := range settled {
			switch {
			case settled[i].Events < full[i].Events:
				shorter++
			case settled[i].Events > full[i].Events:
				t.Errorf("%s row %d: %d events settled, more than %d run to the deadline", name, i, settled[i].Events, full[i].Events)
			}
		}
		// Under a latency without a largest delay, or a partition that
		// never heals, the rule must not apply; without faults it must
		// end every trial; with faults that end, some.
		switch want := ended[name]; {
		case want == "none" && shorter != 0:
			t.Errorf("%s: %d trials ended early; the rule does not apply here", name, shorter)
		case want == "all" && shorter != len(settled):
			t.Errorf("%s: %d of %d trials ended early; want all", name, shorter, len(settled))
		case want == "" && shorter == 0:
			t.Errorf("%s: no trial ended early", name)
		}
	}
}
