package reports

import (
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestColumnsMatch(t *testing.T) {
	if len(columns) != len(Columns) {
		t.Fatalf("%d codecs for %d columns", len(columns), len(Columns))
	}
	for i, c := range columns {
		if c.name != Columns[i] {
			t.Errorf("codec %d is %q, Columns has %q", i, c.name, Columns[i])
		}
	}
	// DESIGN.md ("Results"): the stable columns end with error.
	if Columns[StableColumns-1] != "error" {
		t.Errorf("stable columns end at %q, want error", Columns[StableColumns-1])
	}
}

func TestFormatFloat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{11, "11"}, {0.005, "0.005"}, {0, "0"}, {-2.5, "-2.5"}, {1e21, "1000000000000000000000"},
		{1.0 / 3, "0.3333333333333333"}, {123456.789, "123456.789"}, {5e-7, "0.0000005"},
	} {
		if got := FormatFloat(tc.v); got != tc.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := Some(7.0).String(); got != "7" {
		t.Errorf("Some(7.0) = %q", got)
	}
	if got := (Opt[int64]{}).String(); got != "" {
		t.Errorf("unset Opt = %q", got)
	}
}

func TestParseCounts(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    Counts
		wantErr bool
	}{
		{"", nil, false},
		{"ELECTION=3", Counts{{"ELECTION", 3}}, false},
		{"ELECTED=8;ELECTION=36", Counts{{"ELECTED", 8}, {"ELECTION", 36}}, false},
		{"OK=-1", Counts{{"OK", -1}}, false},
		{"ELECTION", nil, true},
		{"=3", nil, true},
		{"A=1;A=2", nil, true},
		{"A=x", nil, true},
		{"A=1;", nil, true},
	} {
		got, err := ParseCounts(tc.in)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseCounts(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("ParseCounts(%q).String() = %q", tc.in, got.String())
		}
	}
}

func TestJSONValues(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{string(appendJSONFloat(nil, math.NaN())), "null"},
		{string(appendJSONFloat(nil, math.Inf(1))), "null"},
		{string(appendJSONFloat(nil, 0.125)), "0.125"},
		{string(appendJSONString(nil, "a\"b\\c\n<&>\x01")), `"a\"b\\c\n<&>\u0001"`},
		{string(appendJSONString(nil, "\xff")), "\"\uFFFD\""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
}

// README's column reference is generated between these two lines.
const (
	readmeColumnsBegin = "<!-- columns: generated from reports.Columns and its meanings (reports/columndocs.go); do not edit. Regenerate: go test ./reports -run TestReadmeColumnsAreCurrent -rewrite -->\n"
	readmeColumnsEnd   = "<!-- end of columns -->\n"
)

// README's table of results.csv's columns is ColumnTable(): a column added
// to Columns without a meaning, or a README edited by hand, fails here.
func TestReadmeColumnsAreCurrent(t *testing.T) {
	const path = "../README.md"
	table, err := ColumnTable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	before, rest, ok := strings.Cut(readme, readmeColumnsBegin)
	current, after, ok2 := strings.Cut(rest, readmeColumnsEnd)
	if !ok || !ok2 {
		t.Fatalf("README.md lacks the column table's markers %q and %q", readmeColumnsBegin, readmeColumnsEnd)
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(before+readmeColumnsBegin+table+readmeColumnsEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if current != table {
		t.Errorf("README.md's column table is not ColumnTable() (go test ./reports -run TestReadmeColumnsAreCurrent -rewrite)\n--- README\n%s\n--- ColumnTable\n%s", current, table)
	}
}

// Every column has a meaning and every meaning a column; no meaning breaks
// the Markdown table it is written into.
func TestColumnMeanings(t *testing.T) {
	if _, err := ColumnTable(); err != nil {
		t.Fatal(err)
	}
	for _, c := range Columns {
		if m := columnMeanings[c]; strings.TrimSpace(m) == "" || strings.ContainsAny(m, "|\n") {
			t.Errorf("column %s: meaning %q is empty or breaks a table row", c, m)
		}
	}
	short := Columns[:len(Columns)-1]
	if _, err := columnTable(Columns, map[string]string{}); err == nil || !strings.Contains(err.Error(), "algorithm") {
		t.Errorf("a column without a meaning: got %v, want an error naming it", err)
	}
	if _, err := columnTable(short, columnMeanings); err == nil || !strings.Contains(err.Error(), Columns[len(Columns)-1]) {
		t.Errorf("a meaning without a column: got %v, want an error naming it", err)
	}
}

// Every column written with a number's codec is numeric, and reads back
// what its cell says; text, flags and counts are not; an optional number's
// empty cell has no value.
func TestNumericColumns(t *testing.T) {
	r := Row{Nodes: 5, Seed: 7, Messages: 30, TS: 0.001, Terms: Some(int64(4)), Leader: "3", Live: true}
	for _, c := range []struct {
		name    string
		numeric bool
		v       float64
		set     bool
	}{
		{"nodes", true, 5, true}, {"seed", true, 7, true}, {"messages", true, 30, true},
		{"t_s", true, 0.001, true}, {"terms", true, 4, true}, {"failover_t", true, 0, false},
		{"leader", false, 0, false}, {"live", false, 0, false}, {"messages_by_kind", false, 0, false},
		{"nonesuch", false, 0, false},
	} {
		if got := NumericColumn(c.name); got != c.numeric {
			t.Errorf("NumericColumn(%s) = %v", c.name, got)
		}
		if v, ok := r.Number(c.name); v != c.v || ok != c.set {
			t.Errorf("Number(%s) = %v, %v; want %v, %v", c.name, v, ok, c.v, c.set)
		}
	}
	n := 0
	for _, name := range Columns {
		if NumericColumn(name) {
			n++
		}
	}
	if n < 30 {
		t.Errorf("only %d numeric columns", n)
	}
}

// checkCounts refuses a kind counted twice and a name the cell cannot
// hold, whether it compares the kinds (a few) or maps them (many).
func TestCheckCounts(t *testing.T) {
	kinds := func(n int) Counts {
		c := make(Counts, n)
		for i := range c {
			c[i] = KindCount{Kind: fmt.Sprintf("K%02d", i), N: 1}
		}
		return c
	}
	for _, n := range []int{1, 2, countsScan, countsScan + 1, 3 * countsScan} {
		if err := checkCounts("messages_by_kind", kinds(n)); err != nil {
			t.Errorf("%d distinct kinds: %v", n, err)
		}
		twice := append(kinds(n), KindCount{Kind: "K00", N: 2})
		if err := checkCounts("messages_by_kind", twice); err == nil || !strings.Contains(err.Error(), `kind "K00" counted twice`) {
			t.Errorf("%d kinds and the first again: %v, want it counted twice", n, err)
		}
		bad := append(kinds(n), KindCount{Kind: "A=B", N: 1})
		if err := checkCounts("timeouts_by_kind", bad); err == nil || !strings.Contains(err.Error(), "contains ';' or '='") {
			t.Errorf("%d kinds and A=B: %v, want it refused", n, err)
		}
	}
}
