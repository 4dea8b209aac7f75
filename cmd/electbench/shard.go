package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// shardOf reads which part of the plan this run is (--shard K/M, or
// --shards M with K from $ELECTBENCH_SHARD or $JOB_COMPLETION_INDEX), and
// returns it (nil for the whole plan) with the test a trial of the plan
// passes when it is this part's (workloads.Shard.Part). The manifest
// records the part. It returns the trials' costs it priced them by (nil
// for the whole plan), which the ETA then uses rather than price them
// again.
func (o runOptions) shardOf(trials []workloads.Trial, m *reports.Manifest) (*workloads.Shard, func(workloads.Trial) bool, []float64, error) {
	all := func(workloads.Trial) bool { return true }
	var s workloads.Shard
	switch {
	case o.shard != "" && o.shards != 0:
		return nil, nil, nil, badInputf("--shard and --shards: give one (--shards takes K from $ELECTBENCH_SHARD or $JOB_COMPLETION_INDEX)")
	case o.shard != "":
		var err error
		if s, err = workloads.ParseShard(o.shard); err != nil {
			return nil, nil, nil, badInputf("--shard: %w", err)
		}
	case o.shards != 0:
		if o.shards < 1 || o.shards > workloads.MaxShards {
			return nil, nil, nil, badInputf("--shards %d: want 1..%d", o.shards, workloads.MaxShards)
		}
		if v := os.Getenv("ELECTBENCH_SHARD"); v != "" {
			k, err := strconv.Atoi(v)
			if err != nil || k < 1 || k > o.shards {
				return nil, nil, nil, badInputf("$ELECTBENCH_SHARD %q: want 1..%d with --shards %d", v, o.shards, o.shards)
			}
			s = workloads.Shard{K: k, M: o.shards}
		} else if v := os.Getenv("JOB_COMPLETION_INDEX"); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 || i >= o.shards {
				return nil, nil, nil, badInputf("$JOB_COMPLETION_INDEX %q: want 0..%d with --shards %d", v, o.shards-1, o.shards)
			}
			s = workloads.Shard{K: i + 1, M: o.shards}
		} else {
			return nil, nil, nil, badInputf("--shards %d: say which part in $ELECTBENCH_SHARD (1..%d) or $JOB_COMPLETION_INDEX (0..%d), or use --shard K/M", o.shards, o.shards, o.shards-1)
		}
	default:
		return nil, all, nil, nil
	}
	in, costs, ranges := s.Part(trials)
	m.Shard, m.PlanTrials, m.ShardTrials = s.String(), len(costs), ranges
	// The rows the part must write, by the plan's own keys (seeds
	// included), for merge to check every row against.
	var keys strings.Builder
	for _, t := range trials {
		if in(t) {
			keys.WriteString(t.Key().KeyHash())
		}
	}
	m.ShardKeys = keys.String()
	return &s, in, costs, nil
}
