package harness

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// A system trial's errors are the harness's, never the server's result: a
// run deleted another run's nftables table mid-trial, its loss rules
// failed, and the rows read as the server's trials. Interrupted, they are
// nobody's failure.
func TestSystemTrialErrorsAreInfrastructure(t *testing.T) {
	if err := trialErrors(context.Background(), nil); err != nil {
		t.Errorf("no errors: %v", err)
	}
	errs := []string{"netcut: setting loss 1>2: no such table"}
	err := trialErrors(context.Background(), errs)
	if !errors.Is(err, trial.ErrInfrastructure) || !strings.Contains(err.Error(), errs[0]) {
		t.Errorf("an nftables rule that failed: %v; want an infrastructure error naming it", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := trialErrors(ctx, errs); err == nil || errors.Is(err, trial.ErrInfrastructure) {
		t.Errorf("interrupted: %v; want a plain error", err)
	}
}

// The run's latency model on a server is drawn once a member
// (memberDelays): a constant or normal model gives every member its mean
// (the normal's deviation as Toxiproxy's jitter), so every byte between
// two members takes the model's one-way latency; a uniform one draws each
// member's within its bounds, in whole milliseconds, the same for the
// same seed.
func TestMemberDelays(t *testing.T) {
	cfg := func(l trial.Latency) *trial.Config {
		return &trial.Config{Latency: l, Seed: 7, Ranks: nodes.SmallRanks([]uint32{1, 2, 3, 4, 5})}
	}
	for _, c := range []struct {
		model   trial.Latency
		lat, ji time.Duration
	}{
		{trial.Constant(20 * time.Millisecond), 20 * time.Millisecond, 0},
		{trial.Normal{MeanD: 5 * time.Millisecond, SD: time.Millisecond}, 5 * time.Millisecond, time.Millisecond},
	} {
		for i, d := range memberDelays(cfg(c.model)) {
			if d.Latency != c.lat || d.Jitter != c.ji {
				t.Errorf("%v: member %d: %+v; want %v ± %v", c.model, i, d, c.lat, c.ji)
			}
		}
	}
	u := trial.Uniform{Lo: 10 * time.Millisecond, Hi: 30 * time.Millisecond}
	got := memberDelays(cfg(u))
	if len(got) != 5 || !slices.Equal(got, memberDelays(cfg(u))) {
		t.Fatalf("%v: %v, then %v; want 5 delays, the same twice", u, got, memberDelays(cfg(u)))
	}
	for i, d := range got {
		if d.Latency < u.Lo || d.Latency > u.Hi || d.Latency%time.Millisecond != 0 || d.Jitter != 0 {
			t.Errorf("%v: member %d: %+v; want a whole millisecond in its bounds, no jitter", u, i, d)
		}
	}
}
