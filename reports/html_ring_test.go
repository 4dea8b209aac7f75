package reports

import (
	"bytes"
	"strings"
	"testing"
)

// The ring section draws one series per ring algorithm and arrangement,
// with the N·log₂N/2 line, and is left out when no ring series has two
// sizes.
func TestRingLectureSection(t *testing.T) {
	var rows []Row
	for _, n := range []int{64, 256, 1024} {
		k := int64(0)
		for m := n; m > 1; m >>= 1 {
			k++
		}
		for _, c := range []struct {
			algo, arr string
			msgs      int64
		}{{"lcr", "bit-reversal", int64(n)*k/2 + 2*int64(n)}, {"lcr", "descending", int64(n*(n+1)/2 + n)}, {"time-slice", "random", int64(n)}} {
			rows = append(rows, Row{Algorithm: c.algo, Variant: "default", Runtime: "sim", Scenario: "adhoc", Nodes: n,
				Arrangement: c.arr, Messages: c.msgs, Correct: true, Live: true})
		}
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, RowsOf(rows), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`<section id="ring">`, `href="#ring"`, ">lcr<", ">time-slice<", ">on bit-reversal<", ">on descending<", ">on random<", "Ω(N log N): log₂N / 2"} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	b.Reset()
	if err := WriteHTML(&b, RowsOf(rows[:3]), HTMLOptions{}); err != nil { // one size
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="ring"`) {
		t.Error("a ring section drawn from one size")
	}
}
