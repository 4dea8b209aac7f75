package chaos

import (
	"time"

	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/electbench/electbench/nodes/trial"

	yaml "go.yaml.in/yaml/v4"
)

// Scenario is one experiment of a scenario file.
type Scenario struct {
	File string // the file it came from, as named to Parse
	Line int    // where its document starts

	Name        string
	Description string
	Runtime     string // sim or live
	Algorithms  []Algorithm
	AllAlgos    bool   // "algorithms: all"
	Nodes       string // sizes as `--nodes` reads them: "8", "4..256", "3,5,8"
	IDs         string // as `--ids`: random, ascending, descending, a list, pow(b)
	Rank        string // id or epoch
	Initiators  string // as `--initiators`
	Network     Network
	Detector    string // as `--detector`
	Trials      int
	Seed        uint64
	Deadline    Duration // zero: the runtime's default
	Faults      []Fault
	Expect      Expect
	// TraceHash is the sha256 (hex) of the trace of the scenario's one
	// trial as `electbench run --trace` writes it: a counterexample's
	// fingerprint, which run and replay check (docs/SHRINK.md).
	TraceHash string
	// Draws is a recorded prefix of the random draws of the scenario's
	// one trial, taken before its seed's: a shrunk counterexample's
	// simpler draws (docs/SHRINK.md); nil: the seed's alone.
	Draws *trial.Draws
	// Hosts is the scenario's hosts: section, as YAML: the fields of a
	// hosts file (`electbench run --hosts FILE`), which the live harness
	// decodes (harness.ParseHosts); nil without one.
	Hosts []byte

	pos map[string]Pos
}

// Algorithm is one algorithm of a scenario, with its variant and parameters.
// An entry with a Command is an algorithm in any language
// (docs/NODE-PROTOCOL.md), defined by the scenario under Name.
type Algorithm struct {
	Name    string
	Variant string // "" for the default
	Params  map[string]string
	// Command is the node program and its arguments; nil for a
	// registered algorithm.
	Command     []string
	Topology    string   // ring, bidirectional-ring or complete (with Command)
	Theory      string   // a built-in algorithm whose figures apply (with Command)
	Maintenance []string // message types that are not election messages (with Command)
}

// Network is the scenario's network model.
type Network struct {
	Latency string // the latency model of every link: 1ms, uniform(1ms,5ms), ...
	Links   []LinkLatency
}

// LinkLatency overrides the latency model of some links.
type LinkLatency struct {
	From, To Selector // default all
	Latency  string
}

// The defaults of a scenario's optional fields (the reference page lists
// them from the same tables).
const (
	DefaultRuntime    = "sim"
	DefaultNodes      = "8"
	DefaultIDs        = "random"
	DefaultRank       = "id"
	DefaultInitiators = "lowest"
	DefaultLatency    = "1ms"
	DefaultDetector   = "perfect(10T)"
	DefaultTrials     = "5"
	DefaultSeed       = "1"
)

// Errorf makes an error at the position of field (a path such as
// "network.latency" or "faults[2].target"), or of its closest written
// parent: for checks made after parsing, such as an unknown algorithm.
func (s *Scenario) Errorf(field, format string, args ...any) *Error {
	e := &Error{File: s.File, Line: s.Line, Field: field, Msg: fmt.Sprintf(format, args...)}
	for p := field; p != ""; p = parent(p) {
		if at, ok := s.pos[p]; ok {
			e.Line, e.Col = at.Line, at.Col
			break
		}
	}
	return e
}

// Has reports whether field was written in the file (not defaulted).
func (s *Scenario) Has(field string) bool {
	_, ok := s.pos[field]
	return ok && field != ""
}

func parent(p string) string {
	if i := strings.LastIndexAny(p, ".["); i >= 0 {
		return p[:i]
	}
	return ""
}

// maxScenarios bounds the documents of one file.
const maxScenarios = 256

// MaxFileSize bounds a scenario file: far more than any experiment needs,
// small enough that parsing cannot exhaust memory.
const MaxFileSize = 1 << 20

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

func validName(s string) bool { return nameRE.MatchString(s) }

// Parse reads a scenario file: one scenario per YAML document (documents
// are separated by ---). file names it in errors. The error, if any, is an
// Errors listing every problem found (up to MaxErrors).
func Parse(file string, data []byte) ([]*Scenario, error) {
	if len(data) > MaxFileSize {
		return nil, Errors{{File: file, Msg: fmt.Sprintf("%d bytes is more than a scenario file may hold (%d)", len(data), MaxFileSize)}}
	}
	d := &decoder{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*Scenario
	names := map[string]int{}
	for doc := 0; len(d.errs) < MaxErrors; doc++ {
		if doc == maxScenarios {
			d.errs = append(d.errs, &Error{File: file, Msg: fmt.Sprintf("more than %d scenarios in one file", maxScenarios)})
			break
		}
		var root yaml.Node
		err := dec.Decode(&root)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			d.errs = append(d.errs, syntaxError(file, err))
			break
		}
		if len(root.Content) == 0 {
			continue
		}
		n := root.Content[0]
		if n.ShortTag() == "!!null" && n.Kind == yaml.ScalarNode {
			continue // an empty document (comments only)
		}
		s := &Scenario{File: file, Line: n.Line}
		d.pos = map[string]Pos{}
		s.pos = d.pos
		if !decodeMapping(d, n, "", scenarioFields, s, nil) {
			continue
		}
		d.check(s, n)
		if s.Name != "" {
			if line, dup := names[s.Name]; dup {
				p := s.pos["name"]
				d.errorf(&yaml.Node{Line: p.Line, Column: p.Col}, "name", "scenario %q is also defined at line %d", s.Name, line)
			}
			names[s.Name] = n.Line
		}
		out = append(out, s)
	}
	if len(d.errs) > 0 {
		// Checks made after a document was read report later; list every
		// problem in file order.
		slices.SortStableFunc(d.errs, func(a, b *Error) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		})
		return nil, d.errs
	}
	if len(out) == 0 {
		return nil, Errors{{File: file, Msg: "no scenario in the file"}}
	}
	return out, nil
}

// syntaxError turns the YAML library's error into ours, with its position.
func syntaxError(file string, err error) *Error {
	e := &Error{File: file, Msg: "YAML syntax: " + err.Error()}
	var le *yaml.LoadError
	if errors.As(err, &le) {
		e.Line, e.Col = le.Mark.Line, le.Mark.Column
		e.Msg = "YAML syntax: " + le.Message
		if le.ContextMsg != "" {
			e.Msg += " " + le.ContextMsg
		}
	}
	return e
}

// check validates what one field cannot see alone: heals, exclusive fields,
// shapes, and the combinations a kind requires.
func (d *decoder) check(s *Scenario, n *yaml.Node) {
	if len(s.Algorithms) == 0 && !s.AllAlgos && s.Has("algorithms") {
		d.errorf(n, "algorithms", "no algorithm to run")
	}
	byName := map[string]int{}
	for i := range s.Faults {
		f := &s.Faults[i]
		path := index("faults", i)
		at := func(field string) *yaml.Node {
			p, ok := s.pos[join(path, field)]
			if !ok {
				p = s.pos[path]
			}
			return &yaml.Node{Line: p.Line, Column: p.Col}
		}
		if f.Kind == "" {
			continue // a heal, or already reported
		}
		k := kinds[f.Kind]
		if f.Name != "" {
			if j, dup := byName[f.Name]; dup {
				d.errorf(at("name"), join(path, "name"), "faults[%d] has the same name", j)
			}
			byName[f.Name] = i
		}
		if s.Has(join(path, "at")) && s.Has(join(path, "after-messages")) {
			d.errorf(at("after-messages"), join(path, "after-messages"), "give either at or after-messages, not both")
		}
		if !f.For.IsZero() && k.Heals == "" {
			d.errorf(at("for"), join(path, "for"), "a %s acts once; it has nothing to heal", f.Kind)
		}
		switch k.Class {
		case LinkFault:
			if !f.Target.IsZero() && (!f.From.IsZero() || !f.To.IsZero()) {
				d.errorf(at("target"), join(path, "target"), "give either target (with direction) or from/to, not both")
			}
			if s.Has(join(path, "direction")) && f.Target.IsZero() {
				d.errorf(at("direction"), join(path, "direction"), "direction applies to a target")
			}
		case PartitionFault:
			shape := f.Shape.Name
			switch {
			case shape == "groups" && len(f.Groups) == 0:
				d.errorf(at("shape"), join(path, "groups"), "shape groups needs the groups")
			case shape != "groups" && len(f.Groups) > 0:
				d.errorf(at("groups"), join(path, "groups"), "groups apply to shape groups, not %s", shape)
			case shape == "one-way" && (f.From.IsZero() || f.To.IsZero()):
				d.errorf(at("shape"), join(path, "from"), "shape one-way needs from and to")
			case shape != "one-way" && shape != "" && (!f.From.IsZero() || !f.To.IsZero()):
				d.errorf(at("from"), join(path, "from"), "from and to apply to shape one-way, not %s", shape)
			}
		}
		// Parameters that each read well may still not go together
		// (a slicer's size-variation below its average-size): the effect's
		// own check says, once every one of them is read.
		// Written ones first, then defaults: put them in the kind's order,
		// so that the order of a fault's keys changes nothing.
		slices.SortStableFunc(f.Params, func(a, b Param) int {
			return paramIndex(k, a.Name) - paramIndex(k, b.Name)
		})
		if k.Link != nil && len(f.Params) == len(k.Params) {
			if err := f.Compile(time.Millisecond).Link.Validate(); err != nil {
				d.errorf(at("kind"), path, "%v", err)
			}
		}
	}
	d.resolveHeals(s, byName)
}

// resolveHeals hands each heal to the fault it names (byName: a fault's
// index by name), earlier or later in the file, and drops the heals from
// s.Faults.
func (d *decoder) resolveHeals(s *Scenario, byName map[string]int) {
	for i, f := range s.Faults {
		if f.Kind != "" {
			continue
		}
		if f.Heal == nil || f.Name == "" {
			continue // reported already
		}
		path := index("faults", i)
		p := s.pos[join(path, "heal")]
		node := &yaml.Node{Line: p.Line, Column: p.Col}
		j, ok := byName[f.Name]
		hasAt, hasMsgs := s.Has(join(path, "at")), s.Has(join(path, "after-messages"))
		switch {
		case !hasAt && !hasMsgs:
			d.errorf(node, join(path, "at"), "a heal needs at or after-messages")
		case hasAt && hasMsgs:
			d.errorf(node, join(path, "after-messages"), "give either at or after-messages, not both")
		case !ok && len(byName) == 0:
			d.errorf(node, join(path, "heal"), "no fault is named %q (give the fault to heal a name:)", f.Name)
		case !ok:
			d.errorf(node, join(path, "heal"), "no fault is named %q%s", f.Name, suggest(f.Name, sortedKeys(byName)))
		case kinds[s.Faults[j].Kind].Heals == "":
			d.errorf(node, join(path, "heal"), "faults[%d] is a %s, which acts once and cannot be healed", j, s.Faults[j].Kind)
		case s.Faults[j].Heal != nil:
			d.errorf(node, join(path, "heal"), "faults[%d] (%s) is healed twice", j, f.Name)
		default:
			h := *f.Heal
			s.Faults[j].Heal = &h
			if st := s.Faults[j].Start; st.Kind == AtTime && h.Kind == AtTime && absolute(st.At) && absolute(h.At) && h.At.Of(0) < st.At.Of(0) {
				d.errorf(node, join(path, "at"), "heals %s at %s, before it starts at %s", f.Name, h.At, st.At)
			}
		}
	}
	// Only now drop the heals: byName indexes the items as written, and
	// dropping them in the loop moved the faults under later heals (a
	// second fault's heal was lost).
	s.Faults = slices.DeleteFunc(s.Faults, func(f Fault) bool { return f.Kind == "" })
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// absolute reports whether d does not depend on T.
func absolute(d Duration) bool { return !strings.HasSuffix(strings.TrimSpace(d.Text), "T") }
