package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/electbench/electbench/reports"
)

// fedScenarios are runs whose rows hold what results.csv writes otherwise
// than a row holds it, or what the run's end lists: a latency quoted for
// its comma and space, faults and violation texts, safety violations,
// trials not live, a node program's errors. (Text of every kind, formula
// prefixes and escapes included, is reports' FuzzCSVLine's.)
const fedScenarios = `name: odd.scenario_1
algorithms: [raft, bully, chang-roberts]
nodes: [3, 5]
trials: 4
network:
  latency: uniform(1ms, 5ms)
faults:
  - kind: crash
    target: leader
    at: leader-elected
---
name: inaccurate
algorithms: [ring, lcr]
nodes: 8
initiators: successor-of-max
trials: 3
faults:
  - kind: suspect
    target: would-be-leader
    at: election-start
---
name: short-t1
algorithms:
  - name: bully
    params: {t1: 1.5T}
nodes: 6
trials: 3
---
name: starved
algorithms: [raft]
nodes: 5
trials: 2
deadline: 2T
---
name: bad-node
algorithms:
  - name: fedbad%d
    command:
      - sh
      - -c
      - 'read x; echo "garbage, \"quoted\""'
    topology: ring
nodes: 3
trials: 2
`

// fedRuns counts TestFedReadBackIsTheFiles's runs in this process.
var fedRuns int

// TestFedReadBackIsTheFiles: a fresh run's end keeps of its rows, taken as
// the writer hands them on (runPlan.fed), what reading results.csv back
// keeps, summary, counts, failing trials, node programs' errors and the
// table printed of them alike.
func TestFedReadBackIsTheFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "fed.yaml")
	// An external algorithm is registered for the process, with its
	// scenario's directory: a name of its own for each (go test -count).
	fedRuns++
	if err := os.WriteFile(file, fmt.Appendf(nil, fedScenarios, fedRuns), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		args     []string
		nodeErrs int // trials whose node program failed
	}{
		{"scenarios", []string{file}, 2},
		{"built-in", []string{"bully-short-t1", "ring-would-be-leader-crash", "quorum-leader-crash"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := defaultRunOptions()
			o.out, o.formats, o.print = filepath.Join(dir, c.name), "csv", "table"
			cmd := newRunCmdWith(o)
			cmd.SetContext(context.Background())
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			p, err := planRun(cmd, o, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := p.execute(cmd, &o); err != nil {
				t.Fatal(err)
			}
			if p.fed == nil {
				t.Fatal("a fresh run was fed no rows")
			}
			fed := p.fed
			fed.end()
			read, err := readResultsBack(reports.FileRows(filepath.Join(o.out, reports.ResultsCSV)), replayCommand(p.manifest))
			if err != nil {
				t.Fatal(err)
			}
			sameReadBack(t, fed, read)
			if read.nodeErrs.bad != c.nodeErrs {
				t.Errorf("%d trials' node programs failed, want %d", read.nodeErrs.bad, c.nodeErrs)
			}
		})
	}
}

// sameReadBack fails unless fed and read hold the same: their figures
// compared whole, the table and failing trials as printed.
func sameReadBack(t *testing.T, fed, read *readBack) {
	t.Helper()
	if read.tally.Rows == 0 || fed.tally != read.tally {
		t.Errorf("tally fed %+v, read back %+v", fed.tally, read.tally)
	}
	if !reflect.DeepEqual(fed.sum, read.sum) {
		t.Errorf("summary fed\n%+v\nread back\n%+v", fed.sum, read.sum)
	}
	if !reflect.DeepEqual(fed.nodeErrs, read.nodeErrs) {
		t.Errorf("node programs' errors fed %+v, read back %+v", fed.nodeErrs, read.nodeErrs)
	}
	// FailingTrials.Write adds its last lines to what it holds: once each.
	var a, b bytes.Buffer
	errA, errB := writeRunTable(&a, fed, "wide"), writeRunTable(&b, read, "wide")
	if errA != nil || errB != nil || a.String() != b.String() {
		t.Errorf("table fed (%v)\n%s\nread back (%v)\n%s", errA, a.String(), errB, b.String())
	}
	if !bytes.Contains(a.Bytes(), []byte("unsafe or not live trials:")) {
		t.Errorf("the runs listed no failing trial:\n%s", a.String())
	}
	a.Reset()
	b.Reset()
	errA, errB = fed.nodeErrs.report(&a), read.nodeErrs.report(&b)
	if (errA == nil) != (errB == nil) || a.String() != b.String() {
		t.Errorf("node programs' errors fed (%v)\n%s\nread back (%v)\n%s", errA, a.String(), errB, b.String())
	}
}
