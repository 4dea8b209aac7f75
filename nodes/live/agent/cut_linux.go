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
//
// The table lives only while a cut holds: the last heal deletes it, so
// that a host without cuts holds no rule of the agent's.
type cuts struct {
	mu    sync.Mutex
	ctl   netip.AddrPort // where the agent accepts its controller
	table *netcut.Table
	held  map[[2]netip.Addr]bool
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
	pair := [2]netip.Addr{from, to}
	if !cut {
		if !c.held[pair] {
			return nil
		}
		delete(c.held, pair)
		if len(c.held) == 0 {
			return c.closeLocked()
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
		c.table, c.held = t, map[[2]netip.Addr]bool{}
	}
	if err := c.table.Cut(from, to); err != nil {
		return err
	}
	c.held[pair] = true
	return nil
}

// close removes every rule the agent made, with its table.
func (c *cuts) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeLocked()
}

func (c *cuts) closeLocked() error {
	if c.table == nil {
		return nil
	}
	err := c.table.Close()
	c.table, c.held = nil, nil
	return err
}
