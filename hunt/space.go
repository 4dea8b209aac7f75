package hunt

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/workloads"
)

// LatencyModels are the latency models a candidate draws around the base's
// mean T: every message T; uniform around T; exponential with mean T.
var LatencyModels = []string{"constant", "uniform", "exponential"}

// Space is what a hunt varies, around a base scenario: the base gives the
// algorithms (a candidate runs one), the cluster sizes, the mean latency
// T, the detector, the identities and the deadline; the space adds the
// latency models, the initiators and the fault kinds drawn.
type Space struct {
	base       *yaml.Node   // the base as chaos.Format writes it: what a candidate keeps
	algos      []*yaml.Node // an item of `algorithms:` each
	Sizes      []int
	T          time.Duration
	Latencies  []string      // among LatencyModels
	Initiators []string      // the choices; one when the base sets them
	Kinds      []*chaos.Kind // the fault kinds drawn
	// Heal says whether the faults that can heal do (HealModes): the
	// model's faults, crash-stop for a ring algorithm, crash-recovery and
	// partitions that end for a quorum one. Sometimes by default.
	Heal     string
	deadline string     // the base's deadline, "" for the runtime's default
	expect   *yaml.Node // the base's expect:, nil when it has none
}

// The values of Space.Heal.
const (
	HealSometimes = "sometimes"
	HealAlways    = "always"
	HealNever     = "never"
)

// HealModes are Space.Heal's values.
var HealModes = []string{HealSometimes, HealAlways, HealNever}

// ErrNothingToVary says a space holds one schedule only: no fault kind,
// one cluster size and one latency model.
var ErrNothingToVary = errors.New("nothing to vary: no fault kind, one cluster size and one latency model (give --kinds, a range of --nodes or --latency-models)")

// NewSpace is the space around base, with the fault kinds named in kinds
// (nil: every registered kind) and the latency models named in latencies
// (nil: LatencyModels). The base's own faults are not searched: the
// search starts from its fault-free schedule. Errors say which input is
// wrong.
func NewSpace(base *chaos.Scenario, kinds, latencies []string) (*Space, error) {
	if base.Runtime == "live" {
		return nil, fmt.Errorf("scenario %s runs live; hunt searches on the simulator (give a simulated scenario, or its algorithms as flags)", base.Name)
	}
	text, err := chaos.Format(base)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("reading back scenario %s: %w", base.Name, err)
	}
	s := &Space{Heal: HealSometimes, base: doc.Content[0], deadline: base.Deadline.Text, expect: get(doc.Content[0], "expect")}
	if err := s.readAlgos(base); err != nil {
		return nil, err
	}
	if s.Sizes, err = workloads.ParseNodes(base.Nodes); err != nil {
		return nil, fmt.Errorf("nodes %q: %w", base.Nodes, err)
	}
	lat, err := trial.ParseLatency(orDefault(base.Network.Latency, chaos.DefaultLatency))
	if err != nil {
		return nil, err
	}
	s.T = lat.Mean()
	if s.Latencies, err = pick("latency model", latencies, LatencyModels); err != nil {
		return nil, err
	}
	s.Initiators = []string{"lowest", "all", "successor-of-max", "random(2)"}
	if base.Has("initiators") {
		s.Initiators = []string{base.Initiators}
	}
	var all []string
	for _, k := range chaos.Kinds() {
		// A hunt runs on the simulator: a kind it cannot apply (a cut
		// between hosts) is no part of the space.
		if k.Link != nil {
			if _, lacks := sim.Capabilities.Lacks[k.Link.Name()]; lacks {
				continue
			}
		}
		all = append(all, k.Name)
	}
	names, err := pick("fault kind", kinds, all)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		k, _ := chaos.LookupKind(n)
		s.Kinds = append(s.Kinds, k)
	}
	if len(s.Kinds) == 0 && len(s.Sizes) == 1 && len(s.Latencies) == 1 {
		return nil, ErrNothingToVary
	}
	return s, nil
}

// readAlgos takes the base's algorithms, one item each ("all": every
// election algorithm).
func (s *Space) readAlgos(base *chaos.Scenario) error {
	if base.AllAlgos {
		for _, name := range nodes.ElectionNames() {
			s.algos = append(s.algos, mapping("name", name))
		}
	}
	if list := get(s.base, "algorithms"); list != nil && list.Kind == yaml.SequenceNode {
		s.algos = append(s.algos, list.Content...)
	}
	if len(s.algos) == 0 {
		return fmt.Errorf("scenario %s names no algorithm", base.Name)
	}
	return nil
}

// pick checks the words asked for against those known; nil asks for all.
func pick(what string, asked, known []string) ([]string, error) {
	if asked == nil {
		return known, nil
	}
	var out []string
	for _, w := range asked {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		if !slices.Contains(known, w) {
			return nil, fmt.Errorf("unknown %s %q (known: %s)", what, w, strings.Join(known, ", "))
		}
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
