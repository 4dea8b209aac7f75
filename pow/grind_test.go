package pow

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

// grindConfig is small enough for a few seconds: b = 3, so a valid id costs 8
// key pairs, and a fixed key rate of 1000 per CPU-second, so the budgets buy
// 16 and 64 attempts (m ≈ 2 and 8) and the study is exactly reproducible.
func grindConfig() GrindConfig {
	return GrindConfig{
		Params:  Params{Hash: SHA256, Iterations: 1, Bits: 3},
		Honest:  []int{1, 4, 16},
		Budgets: []time.Duration{16 * time.Millisecond, 64 * time.Millisecond},
		Trials:  600,
		Seed:    1,
		KeyRate: 1000,
	}
}

// ALGORITHMS.md: "an adversary who mints m valid ids against N honest ones,
// all uniformly distributed, holds the highest rank with probability
// m/(N+m). Ranking by H(id ‖ epoch nonce) with a nonce revealed after ids are
// fixed denies the adversary any precomputation."
func TestGrindAgreesWithTheClosedForm(t *testing.T) {
	c := grindConfig()
	res, err := Grind(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != len(c.Honest)*len(c.Budgets) {
		t.Fatalf("%d rows, want %d", len(res.Rows), len(c.Honest)*len(c.Budgets))
	}
	for _, r := range res.Rows {
		t.Logf("N=%2d attempts=%2d m̄=%5.2f  static %.3f vs %.3f (z %+.2f)  epoch %.3f vs %.3f (z %+.2f)  all-m %.3f vs %.3f (z %+.2f)",
			r.Honest, r.Attempts, r.MeanIDs, r.Static.P, r.Static.Form, r.Static.Z(),
			r.Epoch.P, r.Epoch.Form, r.Epoch.Z(), r.EpochAll.P, r.EpochAll.Form, r.EpochAll.Z())
		// m is Binomial(attempts, 2^-b).
		p := 1.0 / 8
		wantM := float64(r.Attempts) * p
		seM := math.Sqrt(float64(r.Attempts)*p*(1-p)) / math.Sqrt(float64(r.Trials))
		if math.Abs(r.MeanIDs-wantM) > 5*seM {
			t.Errorf("N=%d, %d attempts: m̄ = %.2f, want %.2f ± %.2f", r.Honest, r.Attempts, r.MeanIDs, wantM, 5*seM)
		}
		for name, e := range map[string]Estimate{"static": r.Static, "epoch": r.Epoch, "epoch, all m": r.EpochAll} {
			if math.Abs(e.Z()) > 4 {
				t.Errorf("N=%d, %d attempts, %s ranking: P = %.3f, closed form %.3f, z = %.2f",
					r.Honest, r.Attempts, name, e.P, e.Form, e.Z())
			}
		}
		// The advantage vanishes: with m ≈ 8 against 16, the best id wins a
		// third of the time by id, and about 1/17 by epoch rank.
		if r.Honest == 16 && r.Attempts == 64 {
			diff := r.Static.P - r.Epoch.P
			se := math.Sqrt(r.Static.P*(1-r.Static.P)/float64(r.Trials) + r.Epoch.P*(1-r.Epoch.P)/float64(r.Trials))
			if diff < 5*se {
				t.Errorf("static %.3f vs epoch %.3f: grinding's advantage did not vanish", r.Static.P, r.Epoch.P)
			}
		}
	}
}

func TestGrindIsReproducible(t *testing.T) {
	c := grindConfig()
	c.Trials, c.Honest = 50, []int{2, 5}
	c.Workers = 1
	a, err := Grind(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	c.Workers = 3
	b, err := Grind(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave different studies on 1 and 3 workers")
	}
	c.Seed = 2
	d, err := Grind(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Rows, d.Rows) {
		t.Error("seeds 1 and 2 gave the same study")
	}
}

func TestGrindCalibratesAndWritesCSV(t *testing.T) {
	c := grindConfig()
	c.KeyRate, c.Calibrate = 0, 20*time.Millisecond
	c.Trials, c.Honest, c.Budgets = 20, []int{3}, []time.Duration{time.Millisecond, 2 * time.Millisecond}
	var progress []int
	c.Progress = func(done, total int) {
		if total != 20 {
			t.Errorf("progress total %d", total)
		}
		progress = append(progress, done)
	}
	res, err := Grind(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.KeyRate <= 0 {
		t.Fatalf("calibrated key rate %v", res.KeyRate)
	}
	if len(progress) != 20 || progress[19] != 20 {
		t.Errorf("progress %v", progress)
	}
	var buf bytes.Buffer
	if err := res.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || !reflect.DeepEqual(recs[0], GrindColumns) {
		t.Fatalf("CSV:\n%v", recs)
	}
	for _, r := range recs[1:] {
		if len(r) != len(GrindColumns) || r[0] != "sha256" || r[3] != "3" {
			t.Errorf("CSV row %v", r)
		}
	}
}

func TestGrindRefusesBadInput(t *testing.T) {
	for name, change := range map[string]func(*GrindConfig){
		"dynamic puzzle":  func(c *GrindConfig) { c.Params.DynBits = 2 },
		"no honest":       func(c *GrindConfig) { c.Honest = nil },
		"zero honest":     func(c *GrindConfig) { c.Honest = []int{0} },
		"no budgets":      func(c *GrindConfig) { c.Budgets = nil },
		"negative budget": func(c *GrindConfig) { c.Budgets = []time.Duration{-time.Second} },
		"no trials":       func(c *GrindConfig) { c.Trials = 0 },
		"NaN key rate":    func(c *GrindConfig) { c.KeyRate = math.NaN() },
	} {
		c := grindConfig()
		change(&c)
		if _, err := Grind(context.Background(), c); !errors.Is(err, ErrParams) {
			t.Errorf("%s: %v, want ErrParams", name, err)
		}
	}
	c := grindConfig()
	c.Params.Hash = "sha1"
	if _, err := Grind(context.Background(), c); !errors.Is(err, ErrUnknownHash) {
		t.Errorf("sha1: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Grind(ctx, grindConfig()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestBench(t *testing.T) {
	res, err := Bench(context.Background(), BenchOptions{Duration: 5 * time.Millisecond, Argon2: testArgon2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hashes) != len(Hashes()) {
		t.Fatalf("%d hashes measured", len(res.Hashes))
	}
	for i, h := range res.Hashes {
		if h.Hash != Hashes()[i] || h.PerCore <= 0 || h.AllCores <= 0 || h.MsPerHash <= 0 {
			t.Errorf("hash %d: %+v", i, h)
		}
		if (h.Argon2 != nil) != (h.Hash == Argon2id) {
			t.Errorf("%s: argon2 settings %v", h.Hash, h.Argon2)
		}
	}
	if res.KeysPerCore <= 0 || res.KeysAllCores <= 0 || res.Workers < 1 {
		t.Errorf("keys: %+v", res)
	}
	if _, err := Bench(context.Background(), BenchOptions{Argon2: Argon2Params{Time: 1}}); !errors.Is(err, ErrParams) {
		t.Errorf("bad argon2 settings: %v", err)
	}
}
