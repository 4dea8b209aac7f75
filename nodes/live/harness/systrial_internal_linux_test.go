package harness

import (
	"context"
	"errors"
	"strings"
	"testing"

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
