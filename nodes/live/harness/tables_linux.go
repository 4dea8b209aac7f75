package harness

import (
	"errors"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness/netcut"
)

// removeDeadTables removes the nftables tables of dead runs (netcut).
// Without root or nf_tables no run could have made one: nothing to say.
func removeDeadTables() ([]string, error) {
	tables, err := netcut.RemoveDead(owner.Dead)
	if errors.Is(err, netcut.ErrNoNetlink) {
		return nil, nil
	}
	return tables, err
}
