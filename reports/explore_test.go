package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// exploreTrace is a small trial: p1 sends an ELECTION that p0 receives, a
// PING lost under a partition that heals, a crash whose message drops at
// the crashed receiver, and p1 deciding itself at 3ms, the row's
// violation.
const exploreTrace = `{"trial":0,"algorithm":"bully","variant":"classic","nodes":2,"seed":7,"scenario":"s"}
{"t":0,"ev":"start","p":0}
{"t":0,"ev":"start","p":1}
{"t":0,"ev":"send","id":1,"from":1,"to":0,"kind":"ELECTION"}
{"t":1000000,"ev":"recv","id":1,"from":1,"to":0,"kind":"ELECTION"}
{"t":1000000,"ev":"fault","what":"partition(halves)[0|1]"}
{"t":1000000,"ev":"send","id":2,"from":0,"to":1,"kind":"PING"}
{"t":1500000,"ev":"lose","id":2,"from":0,"to":1,"kind":"PING"}
{"t":2000000,"ev":"fault","what":"heal partition(halves)"}
{"t":2000000,"ev":"crash","p":0}
{"t":2000000,"ev":"send","id":3,"from":1,"to":0,"kind":"COORDINATOR","rank":"9"}
{"t":2500000,"ev":"drop","id":3,"from":1,"to":0,"kind":"COORDINATOR","rank":"9"}
{"t":3000000,"ev":"decide","p":1,"leader":"9"}
`

// The explorer keeps the trial's row alone of the results it reads as a
// stream (each row handed over in one place, reused: ScanCSV), the last
// that matches; results that cannot be read are said before the trace's
// own error, as when they were read whole before it.
func TestExploreRowOfStream(t *testing.T) {
	rows := []Row{{Algorithm: "bully", Variant: "classic", Scenario: "s", Nodes: 2, Seed: 7, Violation: "first"},
		{Algorithm: "bully", Variant: "classic", Scenario: "s", Nodes: 2, Seed: 7, Violation: "second"},
		{Algorithm: "bully", Variant: "classic", Scenario: "s", Nodes: 2, Seed: 8, Violation: "another seed"}}
	reused := func(fn func(*Row) error) error {
		var r Row
		for i := range rows {
			r = rows[i]
			if err := fn(&r); err != nil {
				return err
			}
		}
		return nil
	}
	tr, err := readExploreTrial(Explore{Trace: strings.NewReader(exploreTrace)})
	if err != nil {
		t.Fatal(err)
	}
	row, err := exploreRow(reused, tr)
	if err != nil || row == nil || row.Violation != "second" {
		t.Fatalf("row %+v, %v; want the last row of the trial's key", row, err)
	}
	bad := errors.New("line 3: not a results file")
	err = WriteExplore(io.Discard, Explore{Trace: strings.NewReader("not a trace"),
		Rows: func(func(*Row) error) error { return bad }})
	if !errors.Is(err, bad) {
		t.Fatalf("error %v; want the results' error before the trace's", err)
	}
}

func TestExploreData(t *testing.T) {
	row := Row{Algorithm: "bully", Variant: "classic", Scenario: "s", Nodes: 2, Trial: 0, Seed: 7, TS: 0.001,
		Violation: "wrong-leader at 3ms: process 1 (id 9) decided 9 while 5 is alive"}
	x := Explore{Trace: strings.NewReader(exploreTrace), Rows: RowsOf([]Row{row}),
		IDs:         func(*Row) []string { return []string{"5", "9"} },
		Maintenance: func(k string) bool { return k == "PING" }}
	tr, err := readExploreTrial(x)
	if err != nil {
		t.Fatal(err)
	}
	d := exploreDataOf(tr, &row, x)
	// Sends pair with their delivery, drop or loss, and back.
	if want := []int{-1, -1, 3, 2, -1, 6, 5, -1, -1, 10, 9, -1}; !slices.Equal(d.Pair, want) {
		t.Errorf("pairs %v, want %v", d.Pair, want)
	}
	if !slices.Equal(d.Kinds, []string{"ELECTION", "PING", "COORDINATOR"}) || !slices.Equal(d.Maint, []bool{false, true, false}) {
		t.Errorf("kinds %v, maintenance %v", d.Kinds, d.Maint)
	}
	if got := d.Strs[d.S[9]]; got != "COORDINATOR(9)" {
		t.Errorf("the COORDINATOR's label is %q, want its kind and what it carries", got)
	}
	// The partition spans the events of the instants from its start (1ms)
	// to its heal (2ms).
	if want := []exploreFault{{From: 3, To: 9, Label: "partition(halves)[p0|p1]"}}; !slices.Equal(d.Faults, want) {
		t.Errorf("faults %+v, want %+v", d.Faults, want)
	}
	if d.Violation != 11 || d.TNs != 1e6 || !slices.Equal(d.IDs, []string{"5", "9"}) {
		t.Errorf("violation at event %d, T %v ns, ids %v; want 11, 1e6, [5 9]", d.Violation, d.TNs, d.IDs)
	}
	var page bytes.Buffer
	x.Trace = strings.NewReader(exploreTrace)
	if err := WriteExplore(&page, x); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<script type="application/json" id="explore-data">`, "Violation: <code>wrong-leader at 3ms"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the page has no %q", want)
		}
	}
}

// A trace of several trials needs a choice, and names what it holds.
func TestExploreChoice(t *testing.T) {
	two := exploreTrace + strings.Replace(exploreTrace, `"trial":0`, `"trial":1`, 1)
	for _, tc := range []struct {
		sel    func(TraceHeader) bool
		chosen int
	}{
		{nil, 2},
		{func(h TraceHeader) bool { return h.Trial == 5 }, 0},
	} {
		_, err := readExploreTrial(Explore{Trace: strings.NewReader(two), Select: tc.sel})
		var ce *TrialChoiceError
		if !errors.As(err, &ce) || ce.Chosen != tc.chosen || !slices.Equal(ce.Names, []string{"s/bully/classic/2/0", "s/bully/classic/2/1"}) {
			t.Errorf("chosen %d: %v", tc.chosen, err)
		}
	}
	tr, err := readExploreTrial(Explore{Trace: strings.NewReader(two), Select: func(h TraceHeader) bool { return h.Trial == 1 }})
	if err != nil || tr.Trial != 1 || len(tr.Events) != 12 {
		t.Errorf("trial 1: %v", err)
	}
}

// Any trace gives a page or an error that names what is wrong, never a
// panic; the page's data are one JSON value the script can read, whatever
// the events (out of order, unpaired, naming unknown kinds), for 1 to
// ExploreMaxNodes lanes.
func FuzzExplore(f *testing.F) {
	f.Add([]byte(exploreTrace))
	f.Add([]byte(`{"trial":0,"nodes":1}` + "\n" + `{"t":5,"ev":"recv","id":9,"from":0,"to":0,"kind":"X"}` + "\n" + `{"t":1,"ev":"fault","what":"heal x"}`))
	f.Add([]byte(`{"trial":0,"nodes":2}` + "\n" + `{"t":-1,"ev":"send","id":1,"from":1,"to":0,"kind":"</script>"}`))
	f.Add([]byte(`{"trial":0,"nodes":-3}`))
	f.Fuzz(func(t *testing.T, trace []byte) {
		var page bytes.Buffer
		err := WriteExplore(&page, Explore{Trace: bytes.NewReader(trace)})
		if err != nil {
			var te *TraceError
			var ce *TrialChoiceError
			if !errors.As(err, &te) && !errors.As(err, &ce) {
				t.Fatalf("error %v is neither a trace error nor a choice of trial", err)
			}
			return
		}
		html := page.String()
		_, data, ok := strings.Cut(html, `<script type="application/json" id="explore-data">`)
		data, _, ok2 := strings.Cut(data, "</script>")
		var d struct {
			N int `json:"n"`
		}
		if !ok || !ok2 || json.Unmarshal([]byte(data), &d) != nil {
			t.Fatalf("the page's data are not one JSON value in their script element:\n%.500s", data)
		}
		if d.N < 1 || d.N > ExploreMaxNodes {
			t.Fatalf("a page of %d lanes", d.N) // the script sizes its arrays by it
		}
	})
}
