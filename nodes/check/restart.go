package check

import (
	"time"
)

// Restarted is told when a crashed process restarts (trial.EvRestart): it is alive again and knows no leader, so it is
// among the processes that must decide for the run to be correct, and its
// rank counts again for "the highest live process".
func (c *Checker) Restarted(at time.Duration, p int) {
	if c.alive[p] {
		return
	}
	c.beliefs.account(at)
	c.alive[p] = true
	c.beliefs.live++
	r := c.ranks.At(p)
	if i, ok := c.leaders.Lookup(&r); ok {
		c.dead[i] = false
	}
	c.belief[p] = 0
	if c.phase != nil {
		c.phase[p] = ""
	}
	// Beliefs in the restarted process were set aside while it was dead;
	// count every live belief again.
	clear(c.believers)
	c.believed, c.beliefs.believing = 0, 0
	for q, b := range c.belief {
		if c.alive[q] && b != 0 && !c.dead[b-1] {
			c.believe(b - 1)
		}
	}
	c.beliefs.reacknowledge(c.believed)
	c.recomputeHighest()
	if c.quorum != nil {
		c.updateKnown(at)
	}
}
