package ring

import (
	"fmt"
	"maps"
	"slices"

	"github.com/electbench/electbench/nodes"
)

// The message kinds of the ring family; doc.go lists the fields each uses.
var (
	kindElection = nodes.RegisterKind("ELECTION", nodes.ElectionClass)
	kindElected  = nodes.RegisterKind("ELECTED", nodes.ElectionClass)
	kindProbe    = nodes.RegisterKind("PROBE", nodes.ElectionClass)
	kindReply    = nodes.RegisterKind("REPLY", nodes.ElectionClass)
)

// election and elected build the messages of the unidirectional algorithms;
// run is the run number (Message.A), 0 except after ring repair restarted a
// run (doc.go).
func election(r nodes.Rank, run int64) nodes.Message {
	return nodes.Message{Kind: kindElection, Rank: r, A: run}
}

func elected(l nodes.Rank, run int64) nodes.Message {
	return nodes.Message{Kind: kindElected, Rank: l, A: run}
}

// constructor returns an Algorithm.New for an algorithm with only the default
// variant and no parameters; newMachine gives each run its own constructor
// (nodes.Batched).
func constructor(name string, newMachine func(nodes.Config) func() nodes.Machine) func(nodes.Config) (func() nodes.Machine, error) {
	return func(cfg nodes.Config) (func() nodes.Machine, error) {
		if _, err := nodes.CheckVariant(name, cfg.Variant, "default"); err != nil {
			return nil, err
		}
		if len(cfg.Params) > 0 {
			keys := slices.Sorted(maps.Keys(cfg.Params))
			return nil, fmt.Errorf("algorithm %s takes no parameters, got %q", name, keys[0])
		}
		return newMachine(cfg), nil
	}
}

// noTimers provides the Machine methods the ring family does not use: no
// algorithm here arms a timer.
type noTimers struct{}

func (noTimers) Timeout(nodes.Env, nodes.TimerID) {}

// announce handles ELECTED(l), the same in every algorithm of the family:
// record l and pass it on to next (the successor), unless this process is l,
// whose ELECTED has then gone all the way round (ALGORITHMS.md, `ring`).
// It reads m in place: a Message passed by value is copied twice a call.
func announce(env nodes.Env, next nodes.PeerID, m *nodes.Message) {
	if self := env.Self(); m.Rank.Cmp(&self) == 0 { // == on ranks calls memequal
		return
	}
	env.Decide(m.Rank)
	env.Send(next, *m)
}
