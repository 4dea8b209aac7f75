package reports

import (
	"math"
	"strings"
	"testing"
)

// benjaminiHochberg gives R's p.adjust(p, "BH"): the step-up minimum of
// m·p_(j)/j, at most 1, in the input's order.
func TestBenjaminiHochberg(t *testing.T) {
	for _, c := range []struct{ ps, want []float64 }{
		{[]float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		{[]float64{0.5, 0.9, 1}, []float64{1, 1, 1}},
		{[]float64{0.001, 0.001, 0.2}, []float64{0.0015, 0.0015, 0.2}},
		{[]float64{0.03}, []float64{0.03}},
		{nil, []float64{}},
	} {
		got := benjaminiHochberg(c.ps)
		if len(got) != len(c.want) {
			t.Fatalf("%v: %v, want %v", c.ps, got, c.want)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("%v: q = %v, want %v", c.ps, got, c.want)
				break
			}
		}
	}
}

// The least Fisher p-value a table's margins allow: none below 1 when every
// trial of both sides has the property (one table only), 2/C(10,5) for 5
// of 5 against 0 of 5 (the table itself, at one extreme).
func TestFisherMinP(t *testing.T) {
	if p := fisherMinP(5, 5, 5, 5); p != 1 {
		t.Errorf("5/5 vs 5/5: least p %v, want 1", p)
	}
	if p := fisherMinP(10, 10, 9, 10); p != 1 {
		t.Errorf("10/10 vs 9/10: least p %v, want 1 (19 of 20: the two tables are as likely)", p)
	}
	if p, want := fisherMinP(3, 5, 2, 5), fisherExact(5, 5, 0, 5); math.Abs(p-want) > 1e-15 || want > 0.01 {
		t.Errorf("3/5 vs 2/5: least p %v, want %v (5/5 vs 0/5)", p, want)
	}
}

// Forty groups of which one moved by chance alone: on its own p = 0.0079
// would be a regression at α = 0.05, among forty tests its q is 0.32 and it
// is no change. When ten groups move together, as a change to the code
// moves every size of an algorithm, each of them is still found.
func TestCompareManyGroups(t *testing.T) {
	const groups = 40
	var base, alone, ten []Row
	for g := range groups {
		// Overlapping samples: p near 1 for the groups that did not move.
		b := trialsOf("lcr", 4+g, 100, 104, 108, 112, 116)
		same := trialsOf("lcr", 4+g, 102, 106, 110, 114, 118)
		up := trialsOf("lcr", 4+g, 130, 131, 132, 133, 134) // every trial above every base one: p = 2/252
		base = append(base, b...)
		if g == 0 {
			alone = append(alone, up...)
		} else {
			alone = append(alone, same...)
		}
		if g < 10 {
			ten = append(ten, up...)
		} else {
			ten = append(ten, same...)
		}
	}
	c := Compare(base, alone, CompareOptions{Threshold: -1})
	if c.Tests != 3*groups {
		t.Errorf("family of %d tests, want %d (messages, turnaround_t, decided_t of every group; the shares cannot reach α)", c.Tests, 3*groups)
	}
	if c.LoneSamples != 8 {
		t.Errorf("a change alone among %d tests needs p ≤ %.2g: %d trials a side, want 8 (2/C(16,8) ≈ 1.6e-4; 7 give 5.8e-4)", c.Tests, 0.05/float64(c.Tests), c.LoneSamples)
	}
	ch := changeOf(t, c, "messages")
	if ch.Nodes != 4 {
		t.Fatalf("first messages change is of n=%d", ch.Nodes)
	}
	if ch.Verdict != NoChange || !ch.Q.IsSet() || ch.Q.Get() <= 0.05 || ch.P.Get() != 2.0/252 || !strings.Contains(ch.Reason, "q=") {
		t.Errorf("one group of %d moved: %s, p=%v, q=%v (%s); want no change, q > 0.05", groups, ch.Verdict, ch.P, ch.Q, ch.Reason)
	}
	if n := len(c.Regressions()); n != 0 {
		t.Errorf("one group of %d moved: %d regressions, want 0", groups, n)
	}

	c = Compare(base, ten, CompareOptions{Threshold: -1})
	v := verdicts(c)
	for g := range groups {
		want := NoChange
		if g < 10 {
			want = Regression
		}
		if got := v["lcr/"+itoa(4+g)+"/messages"]; got != want {
			t.Errorf("ten groups moved: n=%d messages %s, want %s", 4+g, got, want)
		}
	}
	for _, ch := range c.Regressions() {
		if !ch.Q.IsSet() || ch.Q.Get() > 0.05 || !strings.Contains(ch.Reason, ", q=") {
			t.Errorf("%s: q %v (%s)", ch.Name(), ch.Q, ch.Reason)
		}
	}
}
