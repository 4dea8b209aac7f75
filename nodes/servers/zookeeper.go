package servers

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
)

func init() {
	register(nodes.Algorithm{
		Name:     "zookeeper-server",
		Family:   "quorum",
		Summary:  "ZooKeeper 3.8 as Debian ships it (zookeeper 3.8.0): unchanged servers (FastLeaderElection, then Zab's discovery and synchronisation), leadership read from their logs, live only",
		Topology: nodes.Complete,
		Params:   zookeeperParams,
		New: func(cfg nodes.Config) (func() nodes.Machine, error) {
			if _, err := ZooKeeperSettings(cfg); err != nil {
				return nil, err
			}
			return func() nodes.Machine { return nodes.Hosted(notANode{}) }, nil
		},
		LiveOnly: liveOnly,
		// As etcd-server's: no message is visible, so no kind is named and
		// no Heartbeat (the leader's pings are not seen).
		Quorum: &nodes.Quorum{
			Steady: func(cfg nodes.Config) (time.Duration, error) {
				s, err := ZooKeeperSettings(cfg)
				return s.Tick, err
			},
		},
	}, func(cfg nodes.Config) (map[string]int, error) {
		s, err := ZooKeeperSettings(cfg)
		return map[string]int{"tick-time": int(s.Tick.Milliseconds()), "init-limit": s.InitLimit, "sync-limit": s.SyncLimit}, err
	})
}

var zookeeperParams = []nodes.Param{
	{Name: "tick-time", Default: "2s", Summary: "tickTime (duration, whole ms): the leader pings each follower every half tick; ZooKeeper's time unit"},
	{Name: "init-limit", Default: "10", Summary: "initLimit (ticks): how long a follower may take to connect to and sync with a new leader"},
	{Name: "sync-limit", Default: "5", Summary: "syncLimit (ticks): a follower silent this long is dropped by the leader, a leader silent this long by its follower"},
}

// ZKSettings are a ZooKeeper ensemble's timing parameters.
type ZKSettings struct {
	Tick                 time.Duration
	InitLimit, SyncLimit int // in ticks
}

// ZooKeeperSettings reads and checks zookeeper-server's configuration, so
// that a bad one is the user's input, refused before anything starts.
func ZooKeeperSettings(cfg nodes.Config) (ZKSettings, error) {
	var s ZKSettings
	if err := nodes.CheckParams("zookeeper-server", cfg.Params, zookeeperParams); err != nil {
		return s, err
	}
	if cfg.Variant != "" && cfg.Variant != "default" {
		return s, fmt.Errorf("algorithm zookeeper-server has no variant %q", cfg.Variant)
	}
	var err error
	if s.Tick, err = cfg.Duration("tick-time", "2s"); err != nil {
		return s, err
	}
	if s.Tick < time.Millisecond {
		return s, fmt.Errorf("parameter tick-time: %v is under ZooKeeper's 1 ms resolution", s.Tick)
	}
	if s.InitLimit, err = ticks(cfg, "init-limit", "10"); err != nil {
		return s, err
	}
	s.SyncLimit, err = ticks(cfg, "sync-limit", "5")
	return s, err
}

// ticks reads parameter name as a positive whole number of ticks.
func ticks(cfg nodes.Config, name, def string) (int, error) {
	v, ok := cfg.Params[name]
	if !ok {
		v = def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		return 0, fmt.Errorf("parameter %s: %q is not a positive whole number of ticks", name, v)
	}
	return n, nil
}
