package quorum

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// uniform draws a duration uniformly from [lo, hi] with the process's own
// seeded source.
func uniform(env nodes.Env, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(env.Rand().Int64N(int64(hi-lo)+1))
}

// durations reads the named duration parameters, in units of T or as Go
// durations, each of which must be positive.
func durations(cfg nodes.Config, declared []nodes.Param, into map[string]*time.Duration) error {
	for _, q := range declared {
		dst, ok := into[q.Name]
		if !ok {
			continue
		}
		d, err := cfg.Duration(q.Name, q.Default)
		if err != nil {
			return err
		}
		if d <= 0 {
			return fmt.Errorf("parameter %s: must be positive, got %v", q.Name, d)
		}
		*dst = d
	}
	return nil
}

// timing makes one of a configuration's durations a nodes.Quorum reads
// (Lease, Steady, Settle) from the algorithm's own parsing of its
// parameters, of, and what to read of the result and of the delay bound D
// (nodes.Config.Bound), get.
func timing[T any](of func(nodes.Config) (*T, error), get func(tm *T, d time.Duration) time.Duration) func(nodes.Config) (time.Duration, error) {
	return func(cfg nodes.Config) (time.Duration, error) {
		tm, err := of(cfg)
		if err != nil {
			return 0, err
		}
		return get(tm, cfg.Bound()), nil
	}
}
