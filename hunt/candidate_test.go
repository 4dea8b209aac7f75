package hunt

import (
	"math/rand/v2"
	"testing"

	yaml "go.yaml.in/yaml/v4"
)

// Every kind's faults, drawn fresh or mutated, make scenarios the checks
// of `electbench run` accept: a refused candidate is a trial the budget
// pays for and nothing runs.
func TestCandidatesAreScenarios(t *testing.T) {
	s := space(t, "name: b\nalgorithms: [bully, chang-roberts, raft]\nnodes: 3..8\n")
	g := generator{s: s, r: rand.New(rand.NewPCG(7, 7))}
	h := &hunter{o: Options{Space: s, Property: Property{Name: "verdict"}}}
	kinds := map[string]int{}
	refused := 0
	c := g.fresh()
	for k := range 2000 {
		if k%2 == 0 {
			c = g.fresh()
		} else {
			c = g.mutate(c)
		}
		data, err := yaml.Marshal(h.scenario(c, k))
		if err != nil {
			t.Fatal(err)
		}
		sc, _, err := load(name(k), data)
		if err != nil {
			refused++
			if refused <= 5 {
				t.Errorf("candidate %d refused: %v\n%s", k, err, data)
			}
			continue
		}
		for _, f := range sc.Faults {
			kinds[f.Kind]++
		}
	}
	for _, k := range s.Kinds {
		if kinds[k.Name] == 0 {
			t.Errorf("no candidate drew a %s fault", k.Name)
		}
	}
	if refused > 0 {
		t.Errorf("%d of 2000 candidates refused", refused)
	}
}
