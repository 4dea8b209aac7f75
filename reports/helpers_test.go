package reports

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata")

// golden compares got with testdata/name, or rewrites the file with -rewrite.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewrite {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -rewrite to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -rewrite updates it)\n got:\n%s\nwant:\n%s", name, got, want)
	}
}

// sampleRows is a fixed run: three configurations of two algorithms, with a
// failed trial, an unset turnaround, disagreeing theory figures, and strings
// that need CSV quoting.
func sampleRows() []Row {
	lcr := func(trial int, msgs int64, ta float64) Row {
		return Row{
			Algorithm: "lcr", Variant: "", Runtime: "sim", Scenario: "adhoc", Nodes: 8,
			Arrangement: "random", Initiators: "all", Trial: trial, Seed: 1<<63 + uint64(trial),
			Messages:       msgs,
			MessagesByKind: Counts{{"ELECTED", 8}, {"ELECTION", msgs - 8}},
			Bytes:          msgs * 24, Timeouts: 0,
			TurnaroundS: Some(ta * 0.001), TurnaroundT: Some(ta),
			DecidedS: Some((ta + 8) * 0.001), DecidedT: Some(ta + 8),
			Leader: "r8", Correct: true, Live: true, TheoryMessages: Some(int64(44)),
			Latency: "1ms", TS: 0.001, Events: 2 * msgs,
		}
	}
	bully := func(trial int, msgs int64, ta float64) Row {
		return Row{
			Algorithm: "bully", Variant: "garcia-molina", Runtime: "live", Scenario: "crash-leader",
			Nodes: 5, Arrangement: "ascending", Initiators: "lowest", Trial: trial, Seed: uint64(trial) * 7919,
			Messages:       msgs,
			MessagesByKind: Counts{{"COORDINATOR", 4}, {"ELECTION", msgs - 8}, {"OK", 4}},
			Bytes:          msgs * 17, Timeouts: 2,
			TimeoutsByKind: Counts{{"T_COORD", 1}, {"T_OK", 1}},
			TurnaroundS:    Some(ta * 0.005), TurnaroundT: Some(ta),
			DecidedS: Some(ta*0.005 + 0.0025), DecidedT: Some(ta + 0.5),
			Leader: "r4", Correct: true, Live: true, TheoryMessages: Some(int64(msgs)),
			DetectS: Some(0.05), FailoverS: Some(0.0625), FailoverT: Some(12.5),
			Latency: "uniform(1ms,9ms)", TS: 0.005, Events: 3 * msgs,
		}
	}
	rows := []Row{
		lcr(0, 44, 11), lcr(1, 44, 11), lcr(2, 44, 11.5), lcr(3, 46, 12), lcr(4, 44, 11),
		bully(0, 20, 4), bully(1, 22, 4.25), bully(2, 18, 3.5),
	}
	// Two of them on several hosts: a clock error bound, and one of 0 (a
	// bound, not NA).
	rows[6].ClockErrorS, rows[7].ClockErrorS = Some(0.000013), Some(0.0)
	failed := bully(3, 3, 0)
	failed.TurnaroundS, failed.TurnaroundT, failed.DecidedS, failed.DecidedT = Opt[float64]{}, Opt[float64]{}, Opt[float64]{}, Opt[float64]{}
	failed.MessagesByKind = Counts{{"ELECTION", 3}}
	failed.Correct, failed.Live, failed.Leader = false, false, ""
	failed.Error = `node 3: dial "127.0.0.1:0", connection refused`
	rows = append(rows, failed)
	stuck := bully(4, 30, 0)
	stuck.TurnaroundS, stuck.TurnaroundT, stuck.DecidedS, stuck.DecidedT = Opt[float64]{}, Opt[float64]{}, Opt[float64]{}, Opt[float64]{}
	stuck.Live, stuck.Correct, stuck.SafetyViolations = false, false, 1
	stuck.Violation = "two leaders: r4 and r3\nafter partition heal"
	rows = append(rows, stuck)
	lcr16 := lcr(0, 152, 23)
	lcr16.Nodes, lcr16.TheoryMessages = 16, Some(int64(152))
	lcr16.MessagesByKind = Counts{{"ELECTED", 16}, {"ELECTION", 136}}
	return append(rows, lcr16, lcr(5, 44, 11.25))
}
