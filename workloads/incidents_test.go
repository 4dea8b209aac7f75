package workloads

import (
	"testing"

	"github.com/electbench/electbench/reports"
)

// The incident library's newer scenarios (docs/incidents.md) hold their
// signature at seed 1, and the figures that tell the variants apart hold
// trial by trial, not only as the medians their expect.columns pin.
func TestIncidentSignatures(t *testing.T) {
	// rows selects one variant's rows (algorithm/variant, as the summary
	// names them) and fails when there are none.
	rows := func(t *testing.T, by map[string][]reports.Row, scenario, algo, variant string) []reports.Row {
		t.Helper()
		var out []reports.Row
		for _, r := range by[scenario] {
			if r.Algorithm == algo && r.Variant == variant {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			t.Fatalf("%s: no rows of %s/%s", scenario, algo, variant)
		}
		return out
	}
	run := func(t *testing.T, name string) map[string][]reports.Row {
		t.Helper()
		by, fails, _ := runScenarios(t, name, 0)
		if len(fails) != 0 {
			t.Fatalf("%s's signature fails: %v", name, fails)
		}
		return by
	}
	t.Run("cloudflare-2020", func(t *testing.T) {
		by := run(t, "cloudflare-2020")
		// etcd's setting: the cut-off follower's pre-vote is refused, on
		// the lossy link and on the cut one alike.
		for _, sc := range []string{"cloudflare-2020", "cloudflare-2020-cut"} {
			for _, r := range rows(t, by, sc, "etcd-raft", "etcd") {
				if r.Disruptions.Get() != 0 || r.LeaderlessS.Get() != 0 || !r.Disruptions.IsSet() {
					t.Errorf("%s etcd trial %d: disruptions %+v, leaderless_s %v", sc, r.Trial, r.Disruptions, r.LeaderlessS.Get())
				}
			}
		}
		// Cut cleanly, plain's old leader leads beside the new one for
		// most of the 300T (2.25 s) window, in every trial.
		for _, r := range rows(t, by, "cloudflare-2020-cut", "etcd-raft", "plain") {
			if r.StaleLeaderS.Get() < 1.5 {
				t.Errorf("cut plain trial %d: stale_leader_s %v", r.Trial, r.StaleLeaderS.Get())
			}
		}
		// Check-quorum's cut-off follower inflates its term and deposes
		// the leader it could not hear once the link heals.
		for _, r := range rows(t, by, "cloudflare-2020-cut", "etcd-raft", "check-quorum") {
			if r.HealDisruptions.Get() < 1 || r.TermInflation.Get() < 3 || r.StaleLeaderS.Get() != 0 {
				t.Errorf("cut check-quorum trial %d: heal_disruptions %+v, term_inflation %d, stale_leader_s %v",
					r.Trial, r.HealDisruptions, r.TermInflation.Get(), r.StaleLeaderS.Get())
			}
		}
	})
	t.Run("limping-leader", func(t *testing.T) {
		by := run(t, "limping-leader")
		// Slowed by 2T a step, etcd-raft's leader heartbeats too slowly to
		// count as leading, yet nobody fails over.
		n, kept := 0, 0
		for _, r := range by["limping-leader"] {
			if r.Algorithm != "etcd-raft" {
				continue
			}
			n++
			if r.Terms.Get() == 1 && r.LeaderlessT.Get() >= 100 {
				kept++
			}
		}
		if n == 0 || kept*10 < n*9 {
			t.Errorf("limping etcd-raft: %d of %d trials kept their slow leader, leaderless >= 100T", kept, n)
		}
		// Slowed by 10T, each variant fails over.
		for _, r := range by["limping-leader-10t"] {
			if r.Terms.Get() < 2 || !r.Correct {
				t.Errorf("%s/%s trial %d slowed by 10T: terms %d, correct %v", r.Algorithm, r.Variant, r.Trial, r.Terms.Get(), r.Correct)
			}
		}
	})
	t.Run("lease-pause", func(t *testing.T) {
		by := run(t, "lease-pause")
		for _, r := range by["lease-pause"] {
			if r.SafetyViolations != 0 {
				t.Errorf("%s/%s trial %d: %d safety violations (%s)", r.Algorithm, r.Variant, r.Trial, r.SafetyViolations, r.Violation)
			}
			if r.Algorithm != "chubby" && r.StaleLeaderS.Get() != 0 {
				t.Errorf("%s/%s trial %d: stale_leader_s %v", r.Algorithm, r.Variant, r.Trial, r.StaleLeaderS.Get())
			}
		}
	})
}
