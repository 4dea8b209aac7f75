package quorum

import (
	"fmt"
	"maps"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
)

// memo is an algorithm's parsing of its timing, of, kept for the last
// configuration it parsed: a trial asks it four times (its machines'
// constructor, the settling window, the checker's heartbeat and steady
// period), each a check of every parameter and a parse of each duration,
// 3% of a raft trial at N = 5, and a sweep's trials share their
// configuration (issue 42). What it returns is shared: read it, never
// write it.
type memo[T any] struct {
	of   func(nodes.Config) (*T, error)
	last atomic.Pointer[memoEntry[T]]
}

type memoEntry[T any] struct {
	variant string
	params  nodes.Params // a copy
	n       int
	t, d    time.Duration
	tm      *T
}

// get is of(cfg), parsed again only when cfg differs from the last.
func (m *memo[T]) get(cfg nodes.Config) (*T, error) {
	if e := m.last.Load(); e != nil && e.variant == cfg.Variant && e.n == cfg.N && e.t == cfg.T && e.d == cfg.D && maps.Equal(e.params, cfg.Params) {
		return e.tm, nil
	}
	tm, err := m.of(cfg)
	if err != nil {
		return nil, err
	}
	m.last.Store(&memoEntry[T]{variant: cfg.Variant, params: maps.Clone(cfg.Params), n: cfg.N, t: cfg.T, d: cfg.D, tm: tm})
	return tm, nil
}

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

// chunk hands out a trial's machines from one array made for its n
// processes, then (a restart's fresh machine) one at a time: five raft
// machines of 232 bytes made apart were 3% of a trial's CPU at N = 5
// (issue 42). take is safe for concurrent use: a live runtime may start
// its nodes at once.
type chunk[T any] struct {
	all  []T
	next atomic.Int64
}

func newChunk[T any](n int) *chunk[T] { return &chunk[T]{all: make([]T, max(n, 0))} }

// take returns a zero T of its own.
func (c *chunk[T]) take() *T {
	if i := c.next.Add(1) - 1; i < int64(len(c.all)) {
		return &c.all[i]
	}
	return new(T)
}
