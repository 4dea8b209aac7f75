package agent

import (
	"net/netip"
	"os"
	"sync"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness/netcut"
)

// cuts are the packets the agent drops on their way into its host, at
// its controller's request: rules of one nftables table in the agent's
// own network namespace (its host's), named after the agent's process
// so that `electbench clean` removes what a killed agent left, and made
// at the first Cut with a rule ahead of every drop accepting the
// controller's connection to the agent (netcut.Exempt): a cut from the
// controller's address would otherwise stall the very connection that
// heals it.
type cuts struct {
	mu    sync.Mutex
	ctl   netip.AddrPort // where the agent accepts its controller
	table *netcut.Table
}

func (c *cuts) listening(at netip.AddrPort) {
	c.mu.Lock()
	c.ctl = at
	c.mu.Unlock()
}

// apply cuts (cut) or heals from → to.
func (c *cuts) apply(cut bool, from, to netip.Addr) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !cut {
		if c.table == nil {
			return nil
		}
		return c.table.Heal(from, to)
	}
	if c.table == nil {
		t, err := netcut.Open(os.Getpid(), owner.Token())
		if err != nil {
			return err
		}
		if err := t.Exempt(c.ctl); err != nil {
			t.Close()
			return err
		}
		c.table = t
	}
	return c.table.Cut(from, to)
}

// close removes every rule the agent made, with its table.
func (c *cuts) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.table == nil {
		return nil
	}
	err := c.table.Close()
	c.table = nil
	return err
}
