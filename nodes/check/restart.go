package check

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// Restarted is told when a crashed process restarts (trial.EvRestart): it is alive again and knows no leader, so it is
// among the processes that must decide for the run to be correct, and its
// rank counts again for "the highest live process".
func (c *Checker) Restarted(at time.Duration, p int) {
	if c.alive[p] {
		return
	}
	c.alive[p] = true
	delete(c.dead, c.ranks[p])
	c.belief[p] = nodes.Rank{}
	if c.phase != nil {
		c.phase[p] = ""
	}
	// Beliefs in the restarted process were set aside while it was dead;
	// count every live belief again.
	clear(c.believers)
	for q, r := range c.belief {
		if c.alive[q] && !r.IsZero() && !c.dead[r] {
			c.believers[r]++
		}
	}
	c.recomputeHighest()
	if c.quorum != nil {
		c.updateKnown(at)
	}
}
