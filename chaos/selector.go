package chaos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/electbench/electbench/nodes/trial"
)

// Selector picks processes. Written as one item or a list (their union):
//
//	3                  position 3 (ring order; also "index:3")
//	all                every process
//	leader             the process the latest decision names (the
//	                   would-be leader while nobody has decided)
//	would-be-leader    the highest-ranked process alive
//	initiator          the first process the workload told to initiate
//	highest, lowest    the highest- or lowest-ranked process, alive or not
//	random(k)          k distinct processes among those alive, drawn from
//	                   the fault stream
//	successor(x)       the process after each of x in ring order
//	host(h)            every process on host h (0-based; live runs on
//	                   hosts only: --netns, --hosts, hosts:; refused elsewhere)
//
// Selectors resolve when their fault starts.
type Selector struct {
	items []selItem
	text  string
}

type selItem struct {
	role string // index, all, leader, would-be-leader, initiator, highest, lowest, random, successor, host
	n    int    // index, random(k), host(h)
	of   *selItem
}

// Roles are the named selectors, for documentation and error messages.
var Roles = []string{"all", "leader", "would-be-leader", "initiator", "highest", "lowest", "random(k)", "successor(x)", "host(h)"}

// ParseSelector reads a selector written as a string: one item or a
// comma-separated union.
func ParseSelector(s string) (Selector, error) {
	var sel Selector
	for _, part := range splitTop(s) {
		it, err := parseSelItem(strings.TrimSpace(part), 0)
		if err != nil {
			return Selector{}, err
		}
		sel.items = append(sel.items, it)
	}
	sel.text = strings.TrimSpace(s)
	return sel, nil
}

// Union joins selectors.
func Union(sels ...Selector) Selector {
	var out Selector
	var texts []string
	for _, s := range sels {
		out.items = append(out.items, s.items...)
		texts = append(texts, s.text)
	}
	out.text = strings.Join(texts, ",")
	return out
}

// Index selects one position.
func Index(p int) Selector {
	return Selector{items: []selItem{{role: "index", n: p}}, text: strconv.Itoa(p)}
}

// splitTop splits on commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// maxSelectorDepth bounds successor(successor(...)) nesting.
const maxSelectorDepth = 8

func parseSelItem(s string, depth int) (selItem, error) {
	if depth > maxSelectorDepth {
		return selItem{}, fmt.Errorf("selector %q nests too deeply", s)
	}
	switch s {
	case "all", "leader", "would-be-leader", "initiator", "highest", "lowest":
		return selItem{role: s}, nil
	case "":
		return selItem{}, fmt.Errorf("empty selector")
	}
	if v, ok := strings.CutPrefix(s, "index:"); ok {
		s = v
	}
	if p, err := strconv.Atoi(s); err == nil {
		if p < 0 || p > maxIndex {
			return selItem{}, fmt.Errorf("position %d is out of range", p)
		}
		return selItem{role: "index", n: p}, nil
	}
	if arg, ok := call(s, "random"); ok {
		k, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || k < 1 || k > maxIndex {
			return selItem{}, fmt.Errorf("random(k) needs a whole number k ≥ 1, got %q", arg)
		}
		return selItem{role: "random", n: k}, nil
	}
	if arg, ok := call(s, "host"); ok {
		h, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || h < 0 || h > maxIndex {
			return selItem{}, fmt.Errorf("host(h) needs a host's number h ≥ 0, got %q", arg)
		}
		return selItem{role: "host", n: h}, nil
	}
	if arg, ok := call(s, "successor"); ok {
		if len(splitTop(arg)) != 1 {
			return selItem{}, fmt.Errorf("successor(x) takes one selector, got %q", arg)
		}
		of, err := parseSelItem(strings.TrimSpace(arg), depth+1)
		if err != nil {
			return selItem{}, err
		}
		return selItem{role: "successor", of: &of}, nil
	}
	return selItem{}, fmt.Errorf("unknown selector %q (want a position, or one of: %s)", s, strings.Join(Roles, ", "))
}

// maxIndex bounds a position written in a file.
const maxIndex = 1 << 26

// call matches "name(arg)" and returns arg.
func call(s, name string) (string, bool) {
	inner, ok := strings.CutPrefix(s, name+"(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return "", false
	}
	return inner[:len(inner)-1], true
}

func (s Selector) String() string { return s.text }

// Names reports whether the selector names role (leader, initiator, ...)
// at its top level or inside successor(x).
func (s Selector) Names(role string) bool {
	for _, it := range s.items {
		for x := &it; x != nil; x = x.of {
			if x.role == role {
				return true
			}
		}
	}
	return false
}

// IsZero reports whether no selector was given.
func (s Selector) IsZero() bool { return len(s.items) == 0 }

// Check reports a selector that can match nothing in a cluster of n: a
// position out of range or random(k) asking for more than n.
func (s Selector) Check(n int) error {
	for _, it := range s.items {
		for x := &it; x != nil; x = x.of {
			switch {
			case x.role == "index" && x.n >= n:
				return fmt.Errorf("position %d matches no process of %d (0..%d)", x.n, n, n-1)
			case x.role == "random" && x.n > n:
				return fmt.Errorf("random(%d) asks for more than the %d processes", x.n, n)
			}
		}
	}
	return nil
}

// CheckHosts reports a host(h) the selector names that is none of hosts
// hosts (0: a run without hosts, where no host(h) is valid).
func (s Selector) CheckHosts(hosts int) error {
	for _, it := range s.items {
		for x := &it; x != nil; x = x.of {
			switch {
			case x.role == "host" && hosts == 0:
				return fmt.Errorf("host(%d) selects the processes of a host, and this run has none: run it live on hosts (--netns K)", x.n)
			case x.role == "host" && x.n >= hosts:
				return fmt.Errorf("host(%d) is none of the run's %d hosts (0..%d)", x.n, hosts, hosts-1)
			}
		}
	}
	return nil
}

// Resolve returns the positions selected now, without duplicates, in the
// order the selector names them.
func (s Selector) Resolve(w World) []int {
	var out []int
	seen := map[int]bool{}
	for _, it := range s.items {
		for _, p := range it.resolve(w) {
			if p >= 0 && p < w.N() && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func (it *selItem) resolve(w World) []int {
	n := w.N()
	switch it.role {
	case "index":
		return []int{it.n}
	case "all":
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	case "leader":
		if l := w.Leader(); l >= 0 {
			return []int{l}
		}
		return []int{extreme(w, true, true)}
	case "would-be-leader":
		return []int{extreme(w, true, true)}
	case "highest":
		return []int{extreme(w, true, false)}
	case "lowest":
		return []int{extreme(w, false, false)}
	case "initiator":
		in := w.Initiators()
		if len(in) == 0 {
			return nil
		}
		return []int{slices.Min(in)}
	case "random":
		var alive []int
		for p := range n {
			if w.Alive(p) {
				alive = append(alive, p)
			}
		}
		r := w.Rand()
		r.Shuffle(len(alive), func(i, j int) { alive[i], alive[j] = alive[j], alive[i] })
		out := alive[:min(it.n, len(alive))]
		slices.Sort(out)
		return out
	case "host":
		var out []int
		if hw, ok := w.(trial.Hosted); ok {
			for p := range n {
				if hw.Host(p) == it.n {
					out = append(out, p)
				}
			}
		}
		return out
	case "successor":
		var out []int
		for _, p := range it.of.resolve(w) {
			out = append(out, (p+1)%n)
		}
		return out
	}
	return nil
}

// extreme is the highest (or lowest) ranked position, among the live ones
// if aliveOnly; -1 if there is none.
func extreme(w World, highest, aliveOnly bool) int {
	best := -1
	for p := range w.N() {
		if aliveOnly && !w.Alive(p) {
			continue
		}
		if best < 0 || highest && w.Rank(best).Less(w.Rank(p)) || !highest && w.Rank(p).Less(w.Rank(best)) {
			best = p
		}
	}
	return best
}
