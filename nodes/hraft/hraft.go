package hraft

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/electbench/electbench/nodes"
)

// The kinds keep hashicorp/raft's RPC names. A heartbeat is an
// AppendEntries without entries, sent by the leader's heartbeat loop; it
// has its own kind, told apart on send, as its answer is on the answer's
// send. Votes and pre-votes with their answers are the election; the rest
// is the leader's maintenance.
var (
	kindAppend      = nodes.RegisterKind("AppendEntries", nodes.MaintenanceClass)
	kindAppendResp  = nodes.RegisterKind("AppendEntriesResp", nodes.MaintenanceClass)
	kindHeartbeat   = nodes.RegisterKind("Heartbeat", nodes.MaintenanceClass)
	kindHeartResp   = nodes.RegisterKind("HeartbeatResp", nodes.MaintenanceClass)
	kindVote        = nodes.RegisterKind("RequestVote", nodes.ElectionClass)
	kindVoteResp    = nodes.RegisterKind("RequestVoteResp", nodes.ElectionClass)
	kindPreVote     = nodes.RegisterKind("RequestPreVote", nodes.ElectionClass)
	kindPreVoteResp = nodes.RegisterKind("RequestPreVoteResp", nodes.ElectionClass)
	kindTimeoutNow  = nodes.RegisterKind("TimeoutNow", nodes.MaintenanceClass)
	kindTimeoutResp = nodes.RegisterKind("TimeoutNowResp", nodes.MaintenanceClass)
)

// liveOnly is why hashicorp-raft cannot be simulated.
const liveOnly = "hashicorp/raft runs its own goroutines and reads time.Now and time.After, and draws its timeouts from the global math/rand: it cannot be stepped deterministically"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "hashicorp-raft",
		Family:   "quorum",
		Summary:  "HashiCorp's Raft (github.com/hashicorp/raft v1.8.0, unchanged; Consul, Nomad, Vault): its own goroutines and clocks, live only",
		Topology: nodes.Complete,
		Variants: variants,
		Params:   params,
		New:      newLibrary,
		LiveOnly: liveOnly,
		Quorum: &nodes.Quorum{
			Ballot: kindVote,
			Grant:  kindVoteResp,
			// The leader's heartbeat loop and its replication both carry
			// its term. TimeoutNow (a leadership transfer, which nothing
			// here asks for) carries none.
			Leader:     kindHeartbeat,
			LeaderAlso: []nodes.Kind{kindAppend},
			// A pre-vote asks for the term after the sender's.
			Campaign: []nodes.Kind{kindPreVote},
			// The leader's heartbeat loop waits randomTimeout(HT/10): at
			// most HT/5 between two heartbeats to one follower.
			Heartbeat: func(cfg nodes.Config) (time.Duration, error) {
				s, err := settingsOf(cfg)
				if err != nil {
					return 0, err
				}
				return s.heartbeat / 5, nil
			},
			Steady: func(cfg nodes.Config) (time.Duration, error) {
				s, err := settingsOf(cfg)
				if err != nil {
					return 0, err
				}
				return s.heartbeat / 10, nil
			},
		},
	})
}

var variants = []nodes.Variant{
	{Name: "default", Summary: "the library's defaults: pre-vote on (since v1.7.0)"},
	{Name: "no-prevote", Summary: "Config.PreVoteDisabled: a follower that times out enters the next term at once"},
}

// The library's defaults (1 s heartbeat and election timeouts, a 500 ms
// lease, a 50 ms commit timeout) scaled so that its 1 s is 20T: with the
// live runtime's usual T of 5 ms, 100 ms.
var params = []nodes.Param{
	{Name: "heartbeat-timeout", Default: "20T", Summary: "Config.HeartbeatTimeout (duration): a follower without contact for this long, checked every [HT, 2HT), becomes a candidate; the leader heartbeats every [HT/10, HT/5)"},
	{Name: "election-timeout", Default: "20T", Summary: "Config.ElectionTimeout (duration): a candidate's round lasts [ET, 2ET) before it tries again"},
	{Name: "leader-lease-timeout", Default: "10T", Summary: "Config.LeaderLeaseTimeout (duration): a leader without contact with a quorum for this long steps down"},
	{Name: "commit-timeout", Default: "1T", Summary: "Config.CommitTimeout (duration): the longest an idle leader waits before replicating"},
	{Name: "log-level", Default: "off", Summary: "the library's own log (hclog) to the node's log: off, error, warn, info, debug or trace"},
}

// settings are one run's configuration, shared by its processes.
type settings struct {
	heartbeat, election, lease, commit time.Duration
	preVoteDisabled                    bool
	level                              hclog.Level
}

func newLibrary(cfg nodes.Config) (func() nodes.Machine, error) {
	s, err := settingsOf(cfg)
	if err != nil {
		return nil, err
	}
	return func() nodes.Machine { return nodes.Hosted(&library{settings: s}) }, nil
}

func settingsOf(cfg nodes.Config) (*settings, error) {
	if err := nodes.CheckParams("hashicorp-raft", cfg.Params, params); err != nil {
		return nil, err
	}
	s := new(settings)
	switch cfg.Variant {
	case "", "default":
	case "no-prevote":
		s.preVoteDisabled = true
	default:
		return nil, fmt.Errorf("algorithm hashicorp-raft has no variant %q (known: default, no-prevote)", cfg.Variant)
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"heartbeat-timeout", &s.heartbeat}, {"election-timeout", &s.election}, {"leader-lease-timeout", &s.lease}, {"commit-timeout", &s.commit}} {
		var err error
		if *d.to, err = cfg.Duration(d.name, defaultOf(d.name)); err != nil {
			return nil, err
		}
	}
	level := strings.TrimSpace(cfg.Params["log-level"])
	if level == "" {
		level = "off"
	}
	if s.level = hclog.LevelFromString(level); s.level == hclog.NoLevel {
		return nil, fmt.Errorf("parameter log-level: %q is not one of off, error, warn, info, debug, trace", level)
	}
	// The library's own validation, as NewRaft would apply it: its errors
	// are the user's bad input, reported before anything runs.
	if err := raft.ValidateConfig(s.config("0")); err != nil {
		return nil, fmt.Errorf("hashicorp-raft: raft.ValidateConfig: %w", err)
	}
	return s, nil
}

func defaultOf(name string) string {
	for _, p := range params {
		if p.Name == name {
			return p.Default
		}
	}
	panic("hashicorp-raft: no parameter " + name)
}

// config is the library's Config for the server of id: DefaultConfig with
// the run's timing and variant. Snapshots never happen (nothing is applied
// but the leader's no-op), and MaxAppendEntries is 1 so that every
// AppendEntries fits a message body.
func (s *settings) config(id raft.ServerID) *raft.Config {
	c := raft.DefaultConfig()
	c.LocalID = id
	c.HeartbeatTimeout = s.heartbeat
	c.ElectionTimeout = s.election
	c.LeaderLeaseTimeout = s.lease
	c.CommitTimeout = s.commit
	c.PreVoteDisabled = s.preVoteDisabled
	c.MaxAppendEntries = 1
	c.SnapshotThreshold = 1 << 40
	c.NoSnapshotRestoreOnStart = true
	return c
}
