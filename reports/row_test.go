package reports

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// Reruns counts the live trials run again, the attempts not kept, and the
// trials whose kept attempt overran all the same; sim rows (no reruns
// cell) and live rows run once count for nothing.
func TestReruns(t *testing.T) {
	rows := []Row{
		{Runtime: "sim", Overruns: Some(int64(3))},
		{Runtime: "live", Reruns: Some(int64(0)), Overruns: Some(int64(1))},
		{Runtime: "live", Reruns: Some(int64(1)), Overruns: Some(int64(0))},
		{Runtime: "live", Reruns: Some(int64(2)), Overruns: Some(int64(4))},
	}
	if tl := TallyOf(rows); tl.Reruns != 2 || tl.RerunAttempts != 3 || tl.RerunsKept != 1 {
		t.Errorf("Reruns = %d trials, %d attempts, %d kept overrunning; want 2, 3, 1", tl.Reruns, tl.RerunAttempts, tl.RerunsKept)
	}
}

// ForReader writes positions and identities distinctly in the lines
// people read (issue #40: "crash(4) … while 4 is alive"), the columns'
// text untouched.
func TestForReader(t *testing.T) {
	ids := []string{"2", "5", "3", "4", "1", "6"}
	hex := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		in   string
		ids  []string
		want string
	}{
		{"wrong-leader at 1.5ms: process 4 (id 1) decided 1 while 6 is alive", ids,
			"wrong-leader at 1.5ms: p4 (id 1) decided p4 (id 1) while p5 (id 6) is alive"},
		{"wrong-leader at 1.5ms: process 4 (id 1) decided 1 while 6 is alive", nil,
			"wrong-leader at 1.5ms: p4 (id 1) decided id 1 while id 6 is alive"},
		{"disagreement at 2ms: processes 0 and 3 ended believing different leaders (5 and 6)", ids,
			"disagreement at 2ms: p0 (id 2) and p3 (id 4) ended believing different leaders (p1 (id 5) and p5 (id 6))"},
		{"two-leaders at 3ms: term 2: process 1 (id " + hex + ") acted as leader from 1ms, and process 2 (id " + hex + ") at 2ms", nil,
			"two-leaders at 3ms: term 2: p1 (id abababab…) acted as leader from 1ms, and p2 (id abababab…) at 2ms"},
		{"t=123.299446ms:crash(4);t=1.604138501s:partition(isolate(lowest))[0,1,3,4|2];t=2.002773719s:heal partition(isolate(lowest))", ids,
			"t=123.3ms:crash(p4 (id 1));t=1.604s:partition(isolate(lowest))[p0,p1,p3,p4|p2];t=2.003s:heal partition(isolate(lowest))"},
		{"t=3ms:crash(0,2)", nil, "t=3ms:crash(p0, p2)"},
		{"--crash random(1)@3T: no such process", nil, "--crash random(1)@3T: no such process"},
	} {
		if got := ForReader(tc.in, tc.ids); got != tc.want {
			t.Errorf("ForReader(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// An Opt holds every number of its type in 8 bytes but one int64 pattern:
// the zero Opt is unset and reads 0; -0, a quiet NaN, the infinities and
// integers far beyond 2⁵³ come back bit for bit; the one int64 it cannot
// hold is refused by the parser, not read back as an empty cell.
func TestOptHoldsItsDomain(t *testing.T) {
	if size := unsafe.Sizeof(Opt[float64]{}); size != 8 {
		t.Errorf("Opt is %d bytes, want 8", size)
	}
	var unset Opt[float64]
	if v, ok := unset.Value(); ok || v != 0 || unset.String() != "" {
		t.Errorf("zero Opt = %v, %v, %q; want unset, 0, empty", v, ok, unset.String())
	}
	for _, f := range []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, math.SmallestNonzeroFloat64, -1.5} {
		o := Some(f)
		if got, ok := o.Value(); !ok || math.Float64bits(got) != math.Float64bits(f) {
			t.Errorf("Some(%v) reads %v (set %v)", f, got, ok)
		}
	}
	for _, i := range []int64{0, -1, math.MinInt64, math.MaxInt64, 1<<53 + 1, optUnset - 1, optUnset + 1} {
		o := Some(i)
		if got, ok := o.Value(); !ok || got != i {
			t.Errorf("Some(%d) reads %d (set %v)", i, got, ok)
		}
	}
	if OptHolds(int64(optUnset)) {
		t.Errorf("OptHolds(%d) = true; it is the unset pattern", int64(optUnset))
	}
	terms, _ := columnNamed("terms")
	var r Row
	if err := terms.parse(&r, strconv.FormatInt(optUnset, 10)); err == nil {
		t.Errorf("terms cell %d parsed as %v; want an error", int64(optUnset), r.Terms)
	}
}

// A Row's size is what a run, a report and a --resume hold per trial
// (issue 39: 936 bytes with a 16-byte Opt); it grows only by new columns.
func TestRowSize(t *testing.T) {
	if size := unsafe.Sizeof(Row{}); size > 648 {
		t.Errorf("a Row is %d bytes, more than 648", size)
	}
}
