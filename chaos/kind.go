package chaos

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes/trial"
	yaml "go.yaml.in/yaml/v4"
)

// Class groups fault kinds by what they act on, which decides the fields
// that select their targets.
type Class uint8

const (
	ProcessFault   Class = iota + 1 // target: the processes it acts on
	DetectorFault                   // target: the processes suspected; observers: who suspects
	LinkFault                       // from/to, or target with direction: the directed links
	PartitionFault                  // shape (and groups, or from/to for one-way)
)

func (c Class) String() string {
	switch c {
	case ProcessFault:
		return "process"
	case DetectorFault:
		return "detector"
	case LinkFault:
		return "link"
	case PartitionFault:
		return "partition"
	}
	return "unknown"
}

// Kind is one registered fault kind. Kinds register themselves from init
// (kind_*.go), so adding one touches nothing central: a kind on an
// existing trial effect is its one file; a new link effect adds its
// parameter struct and interface (nodes/trial/shaping.go) and each
// runtime's method; a new process effect its Effect and optional
// interface (nodes/trial/fault.go: Slower), its case in the timeline and
// each runtime's method.
type Kind struct {
	Name    string
	Class   Class
	Summary string // one line for `electbench list faults`
	// Heals says what healing the fault does ("restart", "resume", "remove
	// the toxic"); empty for faults that act once and cannot be healed.
	Heals string
	// Sim is its message-level effect in the simulator, including where it
	// differs from the live runtime or is a no-op.
	Sim string
	// Live is how the live runtime applies it: a Toxiproxy toxic, a signal,
	// the node's link layer.
	Live string
	// Params are its own parameters; each sets a field of the trial
	// parameters of its effect (Link), or of the trial fault for a process
	// kind's, once T is known (Compile).
	Params []field[Fault]
	// Effect is a process or detector kind's behaviour; Link a link or
	// partition kind's: its trial effect, with the parameters Params do not
	// set. The timeline applies it through the runtime's trial.Injector.
	Effect trial.Effect
	Link   trial.Shaping
}

// ParamDocs documents the kind's own parameters.
func (k *Kind) ParamDocs() []FieldDoc { return docs(k.Params) }

// Fields documents every field a fault of this kind accepts, in order:
// the common ones, the class's target fields, then its parameters.
func (k *Kind) Fields() []FieldDoc { return docs(faultFields(k)) }

var kinds = map[string]*Kind{}

// Register adds a fault kind; it panics on a duplicate or incomplete entry
// (registration happens in init, so a mistake is a bug).
func Register(k Kind) {
	if k.Name == "" || k.Class == 0 || k.Summary == "" || k.Sim == "" || k.Live == "" || (k.Effect == 0) == (k.Link == nil) {
		panic("chaos: incomplete fault kind " + k.Name)
	}
	if kinds[k.Name] != nil {
		panic("chaos: fault kind registered twice: " + k.Name)
	}
	kinds[k.Name] = &k
}

// Kinds returns every registered kind, sorted by name.
func Kinds() []*Kind {
	out := make([]*Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b *Kind) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupKind finds a registered kind.
func LookupKind(name string) (*Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

func kindNames() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// Common fault fields, in the order the reference page lists them.
var (
	fieldKind = field[Fault]{name: "kind", typ: "text", required: true,
		doc: "the fault kind (`electbench list faults`)",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {}} // read before the others
	fieldName = field[Fault]{name: "name", typ: "text", def: "none",
		doc: "a name a later `heal` item refers to",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.text(n, path); ok {
				if !validName(s) {
					d.errorf(n, path, "%q: a name is letters, digits, '.', '_' and '-'", s)
					return
				}
				f.Name = s
			}
		}}
	fieldAt = field[Fault]{name: "at", typ: "trigger", def: "start",
		doc: "when it starts: `start` (before any process boots), a time (`5ms`, `3T`), `election-start`, `leader-elected` or `after-messages(K)`; a trigger may add a delay: `leader-elected+2T`, then a random offset: `leader-elected+uniform(0,75ms)`",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.word(n, path); ok {
				t, err := ParseTrigger(s)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				f.Start = t
			}
		}}
	fieldAfterMessages = field[Fault]{name: "after-messages", typ: "count", def: "none",
		doc: "start right after the K-th election message is sent (the same as `at: after-messages(K)`)",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if k, ok := d.integer(n, path, 1, 1<<62); ok {
				f.Start = Trigger{Kind: AfterMessages, K: k, Delay: f.Start.Delay, Spread: f.Start.Spread}
			}
		}}
	fieldFor = field[Fault]{name: "for", typ: "duration", def: "until healed, or the end of the run",
		doc: "how long it lasts; healing a crash restarts the process, healing a pause resumes it",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if v, ok := d.duration(n, path); ok {
				f.For = v
			}
		}}
	fieldTarget = field[Fault]{name: "target", typ: "selector", required: true,
		doc: "the processes it acts on",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.selector(n, path); ok {
				f.Target = s
			}
		}}
	fieldObservers = field[Fault]{name: "observers", typ: "selector", def: "all",
		doc: "the processes whose detectors suspect the target (a process never suspects itself)",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.selector(n, path); ok {
				f.Observers = s
			}
		}}
	fieldFrom = field[Fault]{name: "from", typ: "selector", def: "all",
		doc: "links from these processes",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.selector(n, path); ok {
				f.From = s
			}
		}}
	fieldTo = field[Fault]{name: "to", typ: "selector", def: "all",
		doc: "links to these processes",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.selector(n, path); ok {
				f.To = s
			}
		}}
	fieldLinkTarget = field[Fault]{name: "target", typ: "selector", def: "none (use from/to)",
		doc: "instead of from/to: the links of these processes, in `direction`",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.selector(n, path); ok {
				f.Target = s
			}
		}}
	fieldDirection = field[Fault]{name: "direction", typ: "out, in or both", def: "both", auto: true,
		doc: "with target: the links out of it, into it, or both (in Toxiproxy terms, upstream toxics on its outgoing proxies, its incoming ones, or both)",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.text(n, path); ok {
				if s != "out" && s != "in" && s != "both" {
					d.errorf(n, path, "want out, in or both, got %q", s)
					return
				}
				f.Direction = s
			}
		}}
	fieldToxicity = field[Fault]{name: "toxicity", typ: "probability", def: "1", auto: true,
		doc: "the probability that a given link is affected, drawn per link from the seed (Toxiproxy's toxicity)",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if v, ok := d.number(n, path, 0, 1); ok {
				f.Toxicity = v
			}
		}}
	fieldShape = field[Fault]{name: "shape", typ: "shape", required: true,
		doc: "`halves`, `isolate(x)`, `majority`, `majorities-ring`, `bridge` or `bridge(x)`, `groups`, `one-way` (see Partition shapes)",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.text(n, path); ok {
				sh, err := ParseShape(s)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				f.Shape = sh
			}
		}}
	fieldGroups = field[Fault]{name: "groups", typ: "list of selectors", def: "none",
		doc: "shape groups: the groups, each a selector; processes in no group form one more",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			d.list(n, path, func(c *yaml.Node, p string) {
				if s, ok := d.selector(c, p); ok {
					f.Groups = append(f.Groups, s)
				}
			})
		}}
	fieldPartFrom = field[Fault]{name: "from", typ: "selector", def: "none",
		doc: "shape one-way: messages from these processes ...",
		dec: fieldFrom.dec}
	fieldPartTo = field[Fault]{name: "to", typ: "selector", def: "none",
		doc: "shape one-way: ... to these are lost",
		dec: fieldTo.dec}
)

// faultFields are the fields a fault of kind k accepts.
func faultFields(k *Kind) []field[Fault] {
	fs := []field[Fault]{fieldKind, fieldName, fieldAt, fieldAfterMessages, fieldFor}
	switch k.Class {
	case ProcessFault:
		fs = append(fs, fieldTarget)
	case DetectorFault:
		fs = append(fs, fieldTarget, fieldObservers)
	case LinkFault:
		fs = append(fs, fieldFrom, fieldTo, fieldLinkTarget, fieldDirection, fieldToxicity)
	case PartitionFault:
		fs = append(fs, fieldShape, fieldGroups, fieldPartFrom, fieldPartTo)
	}
	return append(fs, k.Params...)
}

// explainField says why key is not a field of kind k, when it is one of
// another kind.
func explainField(k *Kind, key string) string {
	var owners []string
	for _, o := range Kinds() {
		if o != k && slices.ContainsFunc(faultFields(o), func(f field[Fault]) bool { return f.name == key }) {
			owners = append(owners, o.Name)
		}
	}
	if len(owners) == 0 {
		return ""
	}
	if len(owners) > 4 {
		owners = append(owners[:4], "...")
	}
	return fmt.Sprintf("does not apply to a %s fault (it is a field of %s)", k.Name, strings.Join(owners, ", "))
}

// Parameter constructors for kinds. A parameter whose def is empty is
// required. Each sets P: the trial parameters of the kind's effect
// (trial.Slice, trial.Delay, ...), or trial.Fault for a process kind's.

// param is a kind's parameter: read decodes the value written (or its
// default) into how it sets P once T is known.
func param[P any](name, typ, def, doc string, read func(d *decoder, n *yaml.Node, path string) (func(p *P, T time.Duration), bool)) field[Fault] {
	return field[Fault]{name: name, typ: typ, def: def, auto: def != "", required: def == "", doc: doc,
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if set, ok := read(d, n, path); ok {
				f.Params = append(f.Params, Param{Name: name, Text: n.Value, set: func(tf *trial.Fault, T time.Duration) {
					setParams(tf, func(p *P) { set(p, T) })
				}})
			}
		},
		enc: func(f *Fault) *yaml.Node {
			for _, p := range f.Params {
				if p.Name == name {
					return wordNode(p.Text)
				}
			}
			return nil
		}}
}

// paramIndex is where the parameter named name is in k's Params.
func paramIndex(k *Kind, name string) int {
	return slices.IndexFunc(k.Params, func(f field[Fault]) bool { return f.name == name })
}

// setParams changes P in tf: its link effect's parameters, or tf itself.
// A P that is neither is a kind registered wrong: its first compile
// panics (TestEveryKindCompiles).
func setParams[P any](tf *trial.Fault, set func(p *P)) {
	if p, ok := any(tf).(*P); ok {
		set(p)
		return
	}
	p := tf.Link.(P)
	set(&p)
	tf.Link = any(p).(trial.Shaping)
}

func durationParam[P any](name, def, doc string, set func(p *P, v time.Duration)) field[Fault] {
	return param(name, "duration", def, doc, func(d *decoder, n *yaml.Node, path string) (func(*P, time.Duration), bool) {
		v, ok := d.duration(n, path)
		return func(p *P, T time.Duration) { set(p, v.Of(T)) }, ok
	})
}

func countParam[P any](name, def, doc string, lo, hi int64, set func(p *P, v int64)) field[Fault] {
	return param(name, "count", def, doc, func(d *decoder, n *yaml.Node, path string) (func(*P, time.Duration), bool) {
		v, ok := d.integer(n, path, lo, hi)
		return func(p *P, _ time.Duration) { set(p, v) }, ok
	})
}

func probabilityParam[P any](def, doc string, set func(p *P, v float64)) field[Fault] {
	return param("probability", "probability", def, doc, func(d *decoder, n *yaml.Node, path string) (func(*P, time.Duration), bool) {
		v, ok := d.number(n, path, 0, 1)
		return func(p *P, _ time.Duration) { set(p, v) }, ok
	})
}

func booleanParam[P any](name, def, doc string, set func(p *P, v bool)) field[Fault] {
	return param(name, "boolean", def, doc, func(d *decoder, n *yaml.Node, path string) (func(*P, time.Duration), bool) {
		v, ok := d.boolean(n, path)
		return func(p *P, _ time.Duration) { set(p, v) }, ok
	})
}
