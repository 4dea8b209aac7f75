package chaos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Fault is one entry of a scenario's fault timeline.
type Fault struct {
	Kind string // a registered kind: crash, pause, partition, latency, ...
	Name string // optional; a heal names the fault it ends
	Line int    // where the fault is written

	// Start is when it begins; it lasts For (if set) or until Heal (if a
	// heal names it), whichever comes first, or to the end of the run.
	Start Trigger
	For   Duration
	Heal  *Trigger

	// Process and detector faults: the processes it acts on. Link faults:
	// with Direction, the links out of (out), into (in) or both ways of the
	// targets.
	Target    Selector
	Direction string // out, in, both (link faults with a target)
	// Link faults and one-way partitions: links from any of From to any of
	// To (both default to all).
	From, To Selector
	// Observers are the processes whose detectors suspect (suspect); every
	// other process by default.
	Observers Selector
	// Partitions.
	Shape  Shape
	Groups []Selector
	// Toxicity is the probability that a given link of the fault's links is
	// affected (Toxiproxy's toxicity, drawn per link from the seed).
	Toxicity float64

	// Params are the kind's parameters as written (or defaulted), in the
	// order of its Params.
	Params []Param
}

// Param is one parameter of a fault's kind as written: its name and text,
// and how it sets the trial fault's parameters once T is known.
type Param struct {
	Name, Text string
	set        func(tf *trial.Fault, T time.Duration)
}

// String is the parameter as written: "average-size=8".
func (p Param) String() string { return p.Name + "=" + p.Text }

// KindInfo is the fault's registered kind.
func (f *Fault) KindInfo() *Kind { return kinds[f.Kind] }

// Label is how the schedule names the fault: its kind, with the shape of a
// partition ("partition(halves)").
func (f *Fault) Label() string {
	if k := f.KindInfo(); k != nil && k.Class == PartitionFault {
		return f.Kind + "(" + f.Shape.String() + ")"
	}
	return f.Kind
}

// CheckHosts reports what of the fault a run on hosts hosts cannot do (0:
// a run without hosts): a host(h) selector naming none of them, or a cut
// between hosts (host-partition) where there are none or one.
func (f *Fault) CheckHosts(hosts int) error {
	if k := f.KindInfo(); k != nil && k.Link == (trial.HostCut{}) && hosts < 2 {
		return fmt.Errorf("%s cuts between hosts, and this run has %d: run it live on hosts (--netns K, K ≥ 2)", f.Kind, hosts)
	}
	sels := append([]Selector{f.Target, f.From, f.To, f.Observers, f.Shape.Of}, f.Groups...)
	for _, s := range sels {
		if err := s.CheckHosts(hosts); err != nil {
			return err
		}
	}
	return nil
}

// Targets resolves a process or detector fault's processes.
func (f *Fault) Targets(w World) []int { return f.Target.Resolve(w) }

// ObserverSet resolves who suspects (suspect faults): every process but
// the target itself when Observers is not given.
func (f *Fault) ObserverSet(w World) []int {
	if f.Observers.IsZero() {
		return trial.AllPositions(w.N())
	}
	return f.Observers.Resolve(w)
}

// Links are directed links, with a description for the schedule.
type Links struct {
	Has  func(from, to int) bool
	Text string
}

// LinkSet resolves the directed links a link fault or a partition cuts or
// disturbs, now.
func (f *Fault) LinkSet(w World) Links {
	n := w.N()
	if k := f.KindInfo(); k != nil && k.Class == PartitionFault {
		return f.partition(w)
	}
	if !f.Target.IsZero() {
		in := mark(n, f.Target.Resolve(w))
		text := f.Direction + ":" + trial.Positions(f.Target.Resolve(w))
		switch f.Direction {
		case "out":
			return Links{Has: func(a, b int) bool { return in[a] }, Text: text}
		case "in":
			return Links{Has: func(a, b int) bool { return in[b] }, Text: text}
		}
		return Links{Has: func(a, b int) bool { return in[a] || in[b] }, Text: "both:" + trial.Positions(f.Target.Resolve(w))}
	}
	return oneWay(w, f.From, f.To)
}

// oneWay is every link from a process of from to one of to.
func oneWay(w World, from, to Selector) Links {
	n := w.N()
	all := trial.AllPositions(n)
	src, dst := all, all
	if !from.IsZero() {
		src = from.Resolve(w)
	}
	if !to.IsZero() {
		dst = to.Resolve(w)
	}
	a, b := mark(n, src), mark(n, dst)
	text := "all"
	if !from.IsZero() || !to.IsZero() {
		text = trial.Positions(src) + ">" + trial.Positions(dst)
	}
	return Links{Has: func(x, y int) bool { return a[x] && b[y] }, Text: text}
}

func (f *Fault) partition(w World) Links {
	n := w.N()
	switch f.Shape.Name {
	case "one-way":
		return oneWay(w, f.From, f.To)
	case "majorities-ring":
		// Every process sees a majority — itself and its d nearest on each
		// side of the ring — and no two see the same one.
		m := n/2 + 1
		d := m / 2
		return Links{Has: func(a, b int) bool {
			dist := (a - b + n) % n
			return min(dist, n-dist) > d
		}, Text: "ring(d=" + strconv.Itoa(d) + ")"}
	case "bridge":
		// Two sides that cannot talk, and one process that talks to both.
		b := n / 2
		if !f.Shape.Of.IsZero() {
			if bs := f.Shape.Of.Resolve(w); len(bs) > 0 {
				b = bs[0]
			}
		}
		side := make([]int, n)
		var left, right []int
		for i := 1; i < n; i++ {
			p := (b + i) % n
			if i <= (n-1)/2 {
				side[p] = 1
				right = append(right, p)
			} else {
				side[p] = 2
				left = append(left, p)
			}
		}
		slices.Sort(left)
		slices.Sort(right)
		return Links{Has: func(x, y int) bool { return side[x]+side[y] == 3 },
			Text: trial.Positions(left) + "|" + strconv.Itoa(b) + "|" + trial.Positions(right)}
	}
	group := make([]int, n)
	switch f.Shape.Name {
	case "halves":
		for p := range n {
			if p >= (n+1)/2 {
				group[p] = 1
			}
		}
	case "isolate":
		for _, p := range f.Shape.Of.Resolve(w) {
			group[p] = 1
		}
	case "majority":
		// The leader (or the would-be leader) and the processes after it
		// in ring order form a minority of ⌈N/2⌉−1; the rest a majority.
		l := w.Leader()
		if l < 0 {
			l = extreme(w, true, true)
		}
		for i := range (n+1)/2 - 1 {
			group[(l+i)%n] = 1
		}
		if (n+1)/2-1 == 0 {
			group[l] = 1
		}
	case "groups":
		for p := range group {
			group[p] = -1
		}
		for g, sel := range f.Groups {
			for _, p := range sel.Resolve(w) {
				if group[p] < 0 {
					group[p] = g
				}
			}
		}
		for p := range group {
			if group[p] < 0 {
				group[p] = len(f.Groups) // the rest form one more group
			}
		}
	}
	return Links{Has: func(a, b int) bool { return group[a] != group[b] }, Text: groupsText(group)}
}

// groupsText writes groups as "0,1|2,3,4", groups in order of first member.
func groupsText(group []int) string {
	var order []int
	members := map[int][]int{}
	for p, g := range group {
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], p)
	}
	parts := make([]string, len(order))
	for i, g := range order {
		parts[i] = trial.Positions(members[g])
	}
	return strings.Join(parts, "|")
}

func mark(n int, ps []int) []bool {
	m := make([]bool, n)
	for _, p := range ps {
		m[p] = true
	}
	return m
}

// Shape is a partition's shape:
//
//	halves            positions 0..⌈N/2⌉−1 against the rest
//	isolate(x)        the processes x alone against the rest
//	majority          the leader (or would-be leader) and the processes after
//	                  it, ⌈N/2⌉−1 in all, against a majority of the rest
//	majorities-ring   every process sees a majority (itself and its nearest
//	                  neighbours on the ring), no two the same one
//	bridge, bridge(x) two sides that cannot talk, and one process (position
//	                  ⌊N/2⌋, or x) that talks to both
//	groups            the explicit groups of the fault's groups field; any
//	                  process not listed joins one more group
//	one-way           messages from the fault's from to its to are lost, the
//	                  other direction works
type Shape struct {
	Name string
	Of   Selector // isolate(x), bridge(x)
}

// Shapes are the partition shapes, for documentation and errors.
var Shapes = []string{"halves", "isolate(x)", "majority", "majorities-ring", "bridge", "bridge(x)", "groups", "one-way"}

// ParseShape reads a shape.
func ParseShape(s string) (Shape, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "halves", "majority", "majorities-ring", "bridge", "groups", "one-way":
		return Shape{Name: s}, nil
	}
	for _, name := range []string{"isolate", "bridge"} {
		if arg, ok := call(s, name); ok {
			sel, err := ParseSelector(arg)
			if err != nil {
				return Shape{}, fmt.Errorf("%s(x): %w", name, err)
			}
			return Shape{Name: name, Of: sel}, nil
		}
	}
	if s == "isolate" {
		return Shape{}, fmt.Errorf("isolate needs the processes to isolate: isolate(leader), isolate(0)")
	}
	return Shape{}, fmt.Errorf("unknown shape %q (known: %s)", s, strings.Join(Shapes, ", "))
}

func (s Shape) String() string {
	if s.Of.IsZero() {
		return s.Name
	}
	return s.Name + "(" + s.Of.String() + ")"
}
