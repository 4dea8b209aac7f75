package servers

import (
	"errors"
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes"
)

// liveOnly is why a server cannot be simulated.
const liveOnly = "a server run from outside (its own processes, clocks and network stack) cannot be stepped by the simulator"

// ErrNotANode is the error of a server's machine started in a node: the
// live harness runs servers as their own processes (nodes/live/harness),
// so a node process asked to host one was misrouted.
var ErrNotANode = errors.New("a server algorithm runs as server processes the live harness starts, not inside a node")

// units are the algorithms this package registers, each with its
// configuration read into the server's own units.
var units = map[string]func(nodes.Config) (map[string]int, error){}

// Is reports whether a is a server algorithm (registered here).
func Is(a *nodes.Algorithm) bool { return units[a.Name] != nil }

// Units is cfg, a configuration of server algorithm name, checked and
// read into the parameters the server takes (whole milliseconds, ticks),
// by their names in nodes.Algorithm.Params.
func Units(name string, cfg nodes.Config) (map[string]int, error) {
	u := units[name]
	if u == nil {
		return nil, fmt.Errorf("%s is not a server algorithm", name)
	}
	return u(cfg)
}

func register(a nodes.Algorithm, u func(nodes.Config) (map[string]int, error)) {
	units[a.Name] = u
	nodes.Register(a)
}

func init() {
	register(nodes.Algorithm{
		Name:     "etcd-server",
		Family:   "quorum",
		Summary:  "etcd 3.4 as Debian ships it (etcd-server 3.4.23): unchanged server processes, leadership read from their logs, live only",
		Topology: nodes.Complete,
		Variants: []nodes.Variant{
			{Name: "default", Summary: "3.4's defaults: CheckQuorum always on, PreVote off"},
			{Name: "pre-vote", Summary: "--pre-vote: a member that times out first asks whether it could win"},
		},
		Params: etcdParams,
		New: func(cfg nodes.Config) (func() nodes.Machine, error) {
			if _, err := EtcdSettings(cfg); err != nil {
				return nil, err
			}
			return func() nodes.Machine { return nodes.Hosted(notANode{}) }, nil
		},
		LiveOnly: liveOnly,
		// No message is visible, so no kind is named: the checker reads
		// terms from the members' logged roles (check.ServerRole). No
		// Heartbeat either: a leader's heartbeats are not seen, and its
		// silence would say nothing.
		Quorum: &nodes.Quorum{
			Steady: func(cfg nodes.Config) (time.Duration, error) {
				s, err := EtcdSettings(cfg)
				return s.Heartbeat, err
			},
		},
	}, func(cfg nodes.Config) (map[string]int, error) {
		s, err := EtcdSettings(cfg)
		return map[string]int{"election-timeout": int(s.Election.Milliseconds()), "heartbeat-interval": int(s.Heartbeat.Milliseconds())}, err
	})
}

var etcdParams = []nodes.Param{
	{Name: "election-timeout", Default: "1s", Summary: "--election-timeout (duration, whole ms): a follower without a heartbeat for a timeout drawn in [ET, 2ET) campaigns"},
	{Name: "heartbeat-interval", Default: "100ms", Summary: "--heartbeat-interval (duration, whole ms): the leader's heartbeat period; etcd wants at most ET/5"},
}

// Settings are a server cluster's timing parameters.
type Settings struct {
	Election, Heartbeat time.Duration
	PreVote             bool
}

// EtcdSettings reads and checks etcd-server's configuration as etcd
// would, so that a bad one is the user's input, refused before anything
// starts.
func EtcdSettings(cfg nodes.Config) (Settings, error) {
	var s Settings
	if err := nodes.CheckParams("etcd-server", cfg.Params, etcdParams); err != nil {
		return s, err
	}
	switch cfg.Variant {
	case "", "default":
	case "pre-vote":
		s.PreVote = true
	default:
		return s, fmt.Errorf("algorithm etcd-server has no variant %q (known: default, pre-vote)", cfg.Variant)
	}
	var err error
	if s.Election, err = cfg.Duration("election-timeout", "1s"); err != nil {
		return s, err
	}
	if s.Heartbeat, err = cfg.Duration("heartbeat-interval", "100ms"); err != nil {
		return s, err
	}
	switch {
	case s.Heartbeat < time.Millisecond:
		return s, fmt.Errorf("parameter heartbeat-interval: %v is under etcd's 1 ms resolution", s.Heartbeat)
	case s.Election < 5*s.Heartbeat:
		// etcd exits at start otherwise (embed.Config.Validate).
		return s, fmt.Errorf("parameter election-timeout: %v is under 5 heartbeat intervals (%v), which etcd refuses", s.Election, 5*s.Heartbeat)
	}
	return s, nil
}

// notANode is the library a server's Hosted machine would start: it
// refuses, since the harness runs the server itself.
type notANode struct{}

func (notANode) Start(nodes.Host) error              { return ErrNotANode }
func (notANode) Deliver(nodes.PeerID, nodes.Message) {}
func (notANode) Stop()                               {}
