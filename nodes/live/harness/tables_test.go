package harness_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/netcut"
)

// The nftables table of a run killed before it could delete it (its link
// cuts, netcut) is removed by the next clean-up, once its pid is gone; a
// live run's table is kept.
func TestCleanRemovesDeadRunsTables(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead, err := netcut.Open(gone.Process.Pid)
	if err != nil {
		t.Fatalf("netcut needs root and nf_tables (CI runs as root): %v", err)
	}
	mine, err := netcut.Open(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	c, err := harness.Clean(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Tables, dead.Name()) {
		dead.Close()
		t.Errorf("clean removed tables %v; want %s among them", c.Tables, dead.Name())
	}
	if slices.Contains(c.Tables, mine.Name()) {
		t.Errorf("clean removed %s, the table of a live run", mine.Name())
	}
}
