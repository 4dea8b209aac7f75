package hunt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/chaos"
)

// candidate is one schedule of the space, as the choices that make it:
// the generator draws one whole, a mutation changes a few of its choices,
// and render writes it as the scenario that runs.
type candidate struct {
	algo       int // index into the space's algorithms
	nodes      int
	latency    string // a latency model as network.latency reads it
	initiators string
	seed       uint64 // the scenario's seed: its trial's draws
	// kinds is the candidate's swarm (indices into Space.Kinds): the
	// kinds its faults are drawn from; rate the chance of each fault slot.
	kinds  []int
	rate   float64
	faults []fault
}

// fault is one fault as the fields of its YAML item, in order.
type fault struct {
	kind   int // index into Space.Kinds
	fields []field
}

type field struct{ key, value string }

func (f *fault) set(key, value string) {
	for i := range f.fields {
		if f.fields[i].key == key {
			f.fields[i].value = value
			return
		}
	}
	f.fields = append(f.fields, field{key, value})
}

// maxFaults bounds the faults of a fresh candidate; a mutation may add
// one more up to twice as many.
const maxFaults = 4

func (c *candidate) clone() *candidate {
	d := *c
	d.kinds = append([]int(nil), c.kinds...)
	d.faults = make([]fault, len(c.faults))
	for i, f := range c.faults {
		d.faults[i] = fault{kind: f.kind, fields: append([]field(nil), f.fields...)}
	}
	return &d
}

// generator draws candidates of a space from one random stream.
type generator struct {
	s *Space
	r *rand.Rand
}

// fresh draws a whole candidate. Swarm testing: it first draws its subset
// of the space's kinds and a rate, then its faults from that subset, so
// that some candidates hammer one kind and others mix a few (a kind that
// masks another's effect is left out of many swarms).
func (g *generator) fresh() *candidate {
	s, r := g.s, g.r
	c := &candidate{
		algo:  r.IntN(len(s.algos)),
		nodes: s.Sizes[r.IntN(len(s.Sizes))],
		seed:  r.Uint64N(1 << 53),
		rate:  r.Float64(),
	}
	c.latency = g.latency()
	c.initiators = g.initiators(c.nodes)
	for i := range s.Kinds {
		if r.IntN(2) == 0 {
			c.kinds = append(c.kinds, i)
		}
	}
	if len(c.kinds) == 0 && len(s.Kinds) > 0 {
		c.kinds = []int{r.IntN(len(s.Kinds))}
	}
	for range maxFaults {
		if len(c.kinds) > 0 && r.Float64() < c.rate {
			c.faults = append(c.faults, g.fault(c, c.kinds[r.IntN(len(c.kinds))]))
		}
	}
	return c
}

// latency draws a latency model around T.
func (g *generator) latency() string {
	T := g.s.T
	switch g.s.Latencies[g.r.IntN(len(g.s.Latencies))] {
	case "uniform":
		w := []time.Duration{25, 50, 90}[g.r.IntN(3)] // ± this many hundredths of T
		return fmt.Sprintf("uniform(%v,%v)", T-T*w/100, T+T*w/100)
	case "exponential":
		return fmt.Sprintf("exponential(%v)", T)
	}
	return T.String()
}

func (g *generator) initiators(n int) string {
	for {
		i := g.s.Initiators[g.r.IntN(len(g.s.Initiators))]
		if i != "random(2)" || n >= 3 {
			return i
		}
	}
}

// selectors are the targets drawn: roles, which mean something at any N,
// rather than positions, which a change of N could take out of range.
var selectors = []string{"leader", "would-be-leader", "highest", "lowest", "initiator", "random(1)", "random(2)", "successor(leader)"}

func (g *generator) selector(n int) string {
	for {
		s := selectors[g.r.IntN(len(selectors))]
		if s != "random(2)" || n >= 3 {
			return s
		}
	}
}

// inT writes k units of T.
func inT(k float64) string { return strconv.FormatFloat(k, 'f', -1, 64) + "T" }

// start draws when a fault starts: before anything boots, at a time, or
// on a trigger (the election's start, the first leader, the K-th
// election message) plus a delay.
func (g *generator) start(n int) string {
	r := g.r
	delay := func(base string) string {
		if k := r.IntN(3 * n); k > 0 {
			return base + "+" + inT(float64(k))
		}
		return base
	}
	switch r.IntN(5) {
	case 0:
		return "start"
	case 1:
		return inT(float64(r.IntN(4*n + 20)))
	case 2:
		return delay("election-start")
	case 3:
		return delay("leader-elected")
	}
	return fmt.Sprintf("after-messages(%d)", 1+r.IntN(4*n))
}

// heals draws whether a fault that can heal does: always, never (a
// crash-stop model: a ring algorithm's), or two times in three.
func (g *generator) heals() bool {
	switch g.s.Heal {
	case HealAlways:
		return true
	case HealNever:
		return false
	}
	return g.r.IntN(3) > 0
}

// spans are the lengths drawn for a fault's for: and a duration parameter.
var spans = []float64{0.5, 1, 2, 3, 5, 8, 13, 20, 40}

func (g *generator) span() string { return inT(spans[g.r.IntN(len(spans))]) }

// shapes are the partition shapes drawn (groups aside: its groups are
// positions).
var shapes = []string{"halves", "isolate(leader)", "isolate(highest)", "isolate(lowest)", "majority", "majorities-ring", "bridge", "one-way"}

// fault draws a fault of kind k: its start, its length when it heals,
// its targets by its class, and its parameters by their declared types.
func (g *generator) fault(c *candidate, k int) fault {
	kind, r := g.s.Kinds[k], g.r
	f := fault{kind: k}
	f.set("kind", kind.Name)
	f.set("at", g.start(c.nodes))
	if kind.Heals != "" && g.heals() {
		f.set("for", g.span())
	}
	switch kind.Class {
	case chaos.ProcessFault:
		f.set("target", g.selector(c.nodes))
	case chaos.DetectorFault:
		f.set("target", g.selector(c.nodes))
		if r.IntN(2) == 0 {
			f.set("observers", g.selector(c.nodes))
		}
	case chaos.LinkFault:
		f.set("target", g.selector(c.nodes))
		f.set("direction", []string{"out", "in", "both"}[r.IntN(3)])
	case chaos.PartitionFault:
		shape := shapes[r.IntN(len(shapes))]
		f.set("shape", shape)
		if shape == "one-way" {
			f.set("from", g.selector(c.nodes))
			f.set("to", g.selector(c.nodes))
		}
	}
	base := len(f.fields)
	for range maxParamDraws {
		f.fields = f.fields[:base]
		for _, p := range kind.ParamDocs() {
			// A parameter with a default keeps it three times in four, and a
			// boolean always: crash's undetected makes a detector incomplete,
			// which is no fault of the network's but another model.
			if p.Required || p.Type != "boolean" && r.IntN(4) == 0 {
				f.set(p.Name, g.value(p.Type))
			}
		}
		// A lone parameter is checked by its own reader's range; only
		// several may not go together (parsing the fault costs as much as
		// a small trial).
		if len(f.fields)-base < 2 || f.valid() {
			break
		}
	}
	return f
}

// maxParamDraws bounds the draws of a fault's parameters that go together
// (a slicer's size-variation below its average-size): the last is kept
// whatever its kind's check says, and the candidate refused.
const maxParamDraws = 8

// valid reports whether the fault alone reads as a fault of a scenario:
// its parameters may each read well and still not go together, which only
// its kind's own check knows (chaos.Parse runs it).
func (f *fault) valid() bool {
	item := mapping()
	for _, kv := range f.fields {
		set(item, kv.key, scalar(kv.value))
	}
	data, err := yaml.Marshal(mapping("name", "fault", "algorithms", "all", "faults", sequence(item)))
	if err != nil {
		return false
	}
	_, err = chaos.Parse("fault", data)
	return err == nil
}

// value draws a parameter's value by its declared type, within ranges an
// election notices: durations of half a T to 40T, probabilities from
// rare to certain, counts from one to a few thousand.
func (g *generator) value(typ string) string {
	r := g.r
	switch typ {
	case "duration":
		return g.span()
	case "probability":
		return strconv.FormatFloat([]float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1}[r.IntN(7)], 'f', -1, 64)
	case "count":
		return strconv.Itoa(1 << (2 * r.IntN(7)))
	case "boolean":
		return strconv.FormatBool(r.IntN(2) == 0)
	}
	panic("hunt: a fault parameter of type " + typ + " has no generator")
}

// mutate changes one to three choices of a corpus entry: add, remove or
// redraw a fault, move one's start, change N, the latency model, the
// initiators or the seed.
func (g *generator) mutate(c *candidate) *candidate {
	c, r := c.clone(), g.r
	for range 1 + r.IntN(3) {
		switch r.IntN(8) {
		case 0:
			if len(g.s.Kinds) > 0 && len(c.faults) < 2*maxFaults {
				k := r.IntN(len(g.s.Kinds))
				if len(c.kinds) > 0 {
					k = c.kinds[r.IntN(len(c.kinds))]
				}
				c.faults = append(c.faults, g.fault(c, k))
			}
		case 1:
			if len(c.faults) > 0 {
				i := r.IntN(len(c.faults))
				c.faults = append(c.faults[:i], c.faults[i+1:]...)
			}
		case 2:
			if len(c.faults) > 0 {
				i := r.IntN(len(c.faults))
				c.faults[i] = g.fault(c, c.faults[i].kind)
			}
		case 3:
			if len(c.faults) > 0 {
				c.faults[r.IntN(len(c.faults))].set("at", g.start(c.nodes))
			}
		case 4:
			c.nodes = g.s.Sizes[r.IntN(len(g.s.Sizes))]
			c.initiators = g.initiators(c.nodes)
		case 5:
			c.latency = g.latency()
		case 6:
			c.initiators = g.initiators(c.nodes)
		case 7:
			c.seed = r.Uint64N(1 << 53)
		}
	}
	return c
}

// extend keeps candidate c's schedule up to frontier, the moment it
// reached its last new state, and adds one or two faults after it, at
// that moment plus 0 to 2N T: the simulator is deterministic, so the way
// to the new state is kept and only what follows changes. nil when c
// draws no fault kind.
func (g *generator) extend(c *candidate, frontier time.Duration) *candidate {
	if len(c.kinds) == 0 || len(c.faults) >= 2*maxFaults {
		return nil
	}
	c, r := c.clone(), g.r
	from := math.Ceil(float64(frontier) / float64(g.s.T))
	for range 1 + r.IntN(2) {
		if len(c.faults) < 2*maxFaults {
			f := g.fault(c, c.kinds[r.IntN(len(c.kinds))])
			f.set("at", inT(from+float64(r.IntN(2*c.nodes+1))))
			c.faults = append(c.faults, f)
		}
	}
	return c
}

// render writes candidate c as a scenario of one trial, expecting what
// expect says: the base's fields with the candidate's choices in place.
func (s *Space) render(c *candidate, name string, expect *yaml.Node) *yaml.Node {
	m := clone(s.base)
	set(m, "name", text(name))
	set(m, "description", nil)
	set(m, "runtime", nil)
	set(m, "algorithms", sequence(clone(s.algos[c.algo])))
	set(m, "nodes", scalar(strconv.Itoa(c.nodes)))
	set(m, "initiators", scalar(c.initiators))
	network := get(m, "network")
	if network == nil {
		network = mapping()
		set(m, "network", network)
	}
	set(network, "latency", scalar(c.latency))
	set(m, "trials", scalar("1"))
	set(m, "seed", scalar(strconv.FormatUint(c.seed, 10)))
	var faults []*yaml.Node
	for _, f := range c.faults {
		item := mapping()
		for _, kv := range f.fields {
			set(item, kv.key, scalar(kv.value))
		}
		faults = append(faults, item)
	}
	set(m, "faults", nil)
	if len(faults) > 0 {
		set(m, "faults", sequence(faults...))
	}
	set(m, "expect", expect)
	return m
}
