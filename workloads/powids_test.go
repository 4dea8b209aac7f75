package workloads

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// --ids pow(b): simulated processes get real minted identities; with
// --rank epoch they are ranked by H(id ‖ nonce), a nonce drawn per trial.
func TestPowIdentities(t *testing.T) {
	s := spec(t, "chang-roberts", "6,12", "random", "lowest", "1ms", 3)
	var err error
	if s.IDs, err = ParseIDs("pow(4,blake2b-256)"); err != nil {
		t.Fatal(err)
	}
	if err := s.IDs.Prepare(context.Background(), 12, pow.CacheOptions{Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	leaders := map[string]bool{}
	for _, tr := range s.Plan() {
		r := RunSim(tr, nil)
		if !r.Correct || r.Arrangement != "pow(4,blake2b-256)" || len(r.Leader) != 64 {
			t.Fatalf("%+v", r)
		}
		if tr.Nodes == 12 {
			leaders[r.Leader] = true
		}
	}
	if len(leaders) != 1 {
		t.Errorf("ranked by id, the same identities must elect the same leader: %v", leaders)
	}
	s.RankBy = RankByEpoch
	leaders = map[string]bool{}
	for _, tr := range s.Plan() {
		r := RunSim(tr, nil)
		if !r.Correct || r.Arrangement != "pow(4,blake2b-256)+epoch" {
			t.Fatalf("%+v", r)
		}
		leaders[r.Leader] = true
	}
	if len(leaders) < 2 {
		t.Errorf("ranked by epoch, trials should elect different leaders: %v", leaders)
	}
	// Every minted identity is valid and distinct.
	ids := s.IDs.Pow.ids
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, nodes.ID.Compare)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			t.Fatal("duplicate minted identity")
		}
	}
}

func TestParsePowIDsErrors(t *testing.T) {
	for in, want := range map[string]string{"pow(x)": "0 ≤ b ≤ 32", "pow(40)": "0 ≤ b ≤ 32", "pow(4,sha1)": "sha1", "pow(4,sha256,3)": "pow(b,hash)"} {
		if _, err := ParseIDs(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseIDs(%q) error %v; want %q", in, err, want)
		}
	}
	if _, err := ParseRankBy("height"); err == nil {
		t.Error("--rank height accepted")
	}
}
