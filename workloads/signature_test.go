package workloads

import (
	"slices"
	"testing"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
)

// Signatures judges each condition on each configuration it applies to,
// as CheckRun does: plain's median 11.5 holds ">=10", pre-vote's max 3
// fails "<=2" with the median bound beside it in one condition; rows of
// another scenario are not judged.
func TestSignatures(t *testing.T) {
	scs, err := chaos.Parse("c.yaml", []byte(`name: c
algorithms: [ring]
expect:
  columns:
    - {variant: plain, column: terms, median: ">=10"}
    - {variant: pre-vote, column: terms, median: "<=2", max: "<=2"}
`))
	if err != nil {
		t.Fatal(err)
	}
	var rows []reports.Row
	for i, terms := range []int64{12, 9, 30, 11} {
		for _, v := range []string{"plain", "pre-vote"} {
			r := reports.Row{Scenario: "c", Algorithm: "etcd-raft", Variant: v, Nodes: 5, Trial: i, Terms: reports.Some(terms)}
			if v == "pre-vote" {
				r.Terms = reports.Some(int64(1 + i%2*2)) // 1, 3, 1, 3
			}
			rows = append(rows, r)
		}
	}
	rows = append(rows, reports.Row{Scenario: "other", Algorithm: "etcd-raft", Variant: "plain", Nodes: 5})
	got := Signatures([]*Spec{{Scenario: "c", Expect: scs[0].Expect}}, rows)
	want := []reports.Signature{
		{Scenario: "c", Algorithm: "etcd-raft", Variant: "plain", Nodes: 5, Column: "terms", Condition: "median >=10", Held: true},
		{Scenario: "c", Algorithm: "etcd-raft", Variant: "pre-vote", Nodes: 5, Column: "terms", Condition: "median <=2, max <=2", Held: false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("signatures:\n got %+v\nwant %+v", got, want)
	}
}
