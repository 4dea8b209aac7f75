package trial

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Budget bounds what one trial may consume while it runs, so that no
// configuration a user types can run away (issue 21: bully under jitter once
// sent 80 million messages per trial at N = 128). A runtime checks it as it
// goes and stops the trial the moment a bound is passed; the trial is then
// recorded as not live, with the bound and the figures it reached. A zero
// field takes its default, scaled to N (DefaultBudget).
type Budget struct {
	// MaxEvents bounds the events processed: deliveries, timer expirations,
	// initiations, suspicions, faults.
	MaxEvents int64
	// MaxInFlight bounds the events pending at once: messages in flight and
	// armed timers. It is what bounds a trial's memory (a pending event
	// costs the simulator about 190 bytes: sim.PendingBytes), since
	// everything else a trial holds is fixed by N.
	MaxInFlight int64
}

// Floors of the default budget: small clusters get room whatever N.
const (
	minEvents   = 1 << 20
	minInFlight = 1 << 20 // 1 Mi pending events: about 190 MiB of heap (sim.PendingBytes)
)

// DefaultBudget is the budget of a trial of n processes of alg running until
// deadline at mean latency t, generous for every figure of ALGORITHMS.md:
//
//   - events: 64·N² + 2²⁰. The largest fault-free message counts of the
//     reference figures are quadratic — bully's ELECTION + OK + repeated
//     COORDINATOR, about 3N², chang-roberts or ring with every process
//     initiating at most 2N² + N, lcr N(N+1)/2 + N — and a simulated event is
//     a delivery, a timer or a suspicion, so 64N² leaves a factor of 20 over
//     the largest of them (and crashes or a detector's restarts room to run
//     their course) while stopping a Θ(N⁴) cascade early: at N = 128,
//     1.05 M + 1 M events against bully's 160 M under the textbook rule.
//   - algorithms that never come to rest (Algorithm.Quorum: heartbeats,
//     watches, lease renewals) also get 4N events per T of the deadline:
//     zookeeper's watches, its heaviest maintenance, cost 3N events per 4T.
//   - in flight: 4N or 1 Mi, whichever is more, and on a complete graph
//     at least 2N². Rings start with at most 2N messages in flight (hs
//     probes both ways), and the floor keeps a runaway ring trial of up to
//     256 Ki processes near 256 MiB of heap, so that two at once (--parallel
//     2) stay well under 2 GiB. On a complete graph bully's ELECTION waves
//     overlap: at N = 1024 under uniform(1ms,5ms) between 1.2 and 1.6 Mi
//     events were pending at once (1.15–1.5·N²), past the old floor of
//     1 Mi, which stopped every such trial; 2N² (512 MiB there) lets them
//     finish, and the plan guard still refuses what would not fit memory.
func DefaultBudget(alg *nodes.Algorithm, n int, deadline, t time.Duration) Budget {
	nn := int64(n)
	b := Budget{MaxEvents: 64*nn*nn + minEvents, MaxInFlight: max(4*nn, minInFlight)}
	if alg != nil && alg.Topology == nodes.Complete {
		b.MaxInFlight = max(b.MaxInFlight, 2*nn*nn)
	}
	if alg != nil && alg.Quorum != nil && t > 0 {
		b.MaxEvents += 4 * nn * int64(deadline/t)
	}
	return b
}

// BudgetOrDefault is the budget that applies: Config.Budget, each zero field
// replaced by its default.
func (c *Config) BudgetOrDefault() Budget {
	def := DefaultBudget(c.Algorithm, c.Ranks.Len(), c.DeadlineOrDefault(), c.T())
	b := c.Budget
	if b.MaxEvents <= 0 {
		b.MaxEvents = def.MaxEvents
	}
	if b.MaxInFlight <= 0 {
		b.MaxInFlight = def.MaxInFlight
	}
	return b
}

// BudgetError says which bound of a Budget a trial passed, and what it had
// reached when it was stopped. A runtime returns it with the trial's record:
// the counts so far are real, but the trial did not finish.
type BudgetError struct {
	What    string        // "events" or "inflight": the flag is --max-<What>
	Limit   int64         // the bound
	At      time.Duration // the trial's clock when it stopped
	Events  int64         // events processed by then
	Pending int64         // events pending by then
}

// Budgets that BudgetError.What names.
const (
	BudgetEvents   = "events"
	BudgetInFlight = "inflight"
)

func (e *BudgetError) Error() string {
	what := "events processed"
	if e.What == BudgetInFlight {
		what = "events in flight"
	}
	return fmt.Sprintf("budget: stopped at %v, past %d %s (--max-%s), after %d events with %d pending",
		e.At, e.Limit, what, e.What, e.Events, e.Pending)
}
