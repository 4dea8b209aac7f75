package workloads

import (
	"errors"
	"testing"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

// ExpectedRows keeps the rows of the scenarios that expect something, in
// order, and reads nothing when no scenario does: a run's end reads its
// results.csv so rather than holding every row.
func TestExpectedRows(t *testing.T) {
	rows := []reports.Row{{Scenario: "a", Trial: 0}, {Scenario: "b", Trial: 1}, {Scenario: "a", Trial: 2}, {Scenario: "c", Trial: 3}}
	specs := []*Spec{{Scenario: "a", Expect: chaos.Expect{LiveShare: 0.5}}, {Scenario: "b"}, {Scenario: "c", Expect: chaos.Expect{LiveShare: 1}}}
	got, err := ExpectedRows(specs, reports.RowsOf(rows))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Trial != 0 || got[1].Trial != 2 || got[2].Trial != 3 {
		t.Errorf("kept %+v, want the trials 0, 2 and 3 of a and c", got)
	}
	unread := func(func(*reports.Row) error) error { return errors.New("read") }
	if got, err := ExpectedRows(specs[1:2], unread); err != nil || got != nil {
		t.Errorf("without expectations: %v, %v; want nothing read", got, err)
	}
	if _, err := ExpectedRows(specs, unread); err == nil {
		t.Error("a failed read is not returned")
	}
}
