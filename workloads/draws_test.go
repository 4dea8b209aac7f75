package workloads

import (
	"strings"
	"testing"

	"github.com/electbench/electbench/chaos"
)

// A scenario's draws apply to its one simulated trial: refused beside
// more trials or more process lists than processes, and part of the plan
// hash (they make another trial than the seed's).
func TestScenarioDraws(t *testing.T) {
	spec := func(extra string) (*Spec, error) {
		t.Helper()
		scs, err := chaos.Parse("d.yaml", []byte("name: d\nalgorithms: [bully]\nnodes: 2\n"+extra))
		if err != nil {
			t.Fatal(err)
		}
		return FromScenario(scs[0])
	}
	for _, c := range []struct{ extra, want string }{
		{"trials: 3\ndraws: {network: [1]}\n", "draws: draws are one trial's: the scenario needs trials: 1"},
		{"trials: 1\ndraws: {processes: [[1], [1], [1]]}\n", "draws.processes: 3 lists for 2 processes"},
	} {
		if _, err := spec(c.extra); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.extra, err, c.want)
		}
	}
	plain, err := spec("trials: 1\n")
	if err != nil {
		t.Fatal(err)
	}
	drawn, err := spec("trials: 1\ndraws: {network: [1, 1]}\n")
	if err != nil {
		t.Fatal(err)
	}
	if drawn.Draws == nil || len(drawn.Draws.Net) != 2 {
		t.Fatalf("spec draws %+v", drawn.Draws)
	}
	if PlanHash([]*Spec{plain}) == PlanHash([]*Spec{drawn}) {
		t.Error("draws kept the plan hash")
	}
}
