package chaos

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	yaml "go.yaml.in/yaml/v4"
)

// Format writes a scenario as a scenario file of one document that Parse
// reads back to the same scenario: every field it set, in the order of
// the reference page, defaulted fields written out. A search writes the
// schedules it finds so (a counterexample is a file `electbench run`
// accepts), and a shrinker writes each smaller one; TestFormatRoundTrips
// holds every built-in scenario to it.
func Format(s *Scenario) ([]byte, error) {
	attachEncoders.Do(attach)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(encodeMapping(scenarioFields, s)); err != nil {
		return nil, fmt.Errorf("formatting scenario %s: %w", s.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("formatting scenario %s: %w", s.Name, err)
	}
	return b.Bytes(), nil
}

// encodeMapping writes the fields of v that are set, in table order, but
// a field whose value is what its documented default reads as (so that a
// field that applies only beside another, direction beside target, is not
// written alone); nil when none is.
func encodeMapping[T any](fields []field[T], v *T) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fields {
		if f.enc == nil {
			panic("chaos: field " + f.name + " has no encoder")
		}
		n := f.enc(v)
		if n == nil || f.auto && sameNode(n, f.enc(defaulted(f))) {
			continue
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f.name}, n)
	}
	if len(m.Content) == 0 {
		return nil
	}
	return m
}

// defaulted is a T with only field f set, to its documented default.
func defaulted[T any](f field[T]) *T {
	var v T
	f.dec(&decoder{pos: map[string]Pos{}}, defaultNode(f.def), f.name, &v)
	return &v
}

// sameNode reports whether a and b are the same scalar.
func sameNode(a, b *yaml.Node) bool {
	return a != nil && b != nil && a.Kind == yaml.ScalarNode && b.Kind == yaml.ScalarNode && a.Value == b.Value
}

// textNode is text read by decoder.text (tagged, so that "123" stays
// text); nil for "".
func textNode(s string) *yaml.Node {
	if s == "" {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// wordNode is a value read by decoder.word or a parameter's reader, plain
// so that it resolves as written ("8" a number, "1ms" text); nil for "".
func wordNode(s string) *yaml.Node {
	if s == "" {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
}

func intNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)}
}

func selectorNode(s Selector) *yaml.Node {
	if s.IsZero() {
		return nil
	}
	return textNode(s.String())
}

func seqNode(items []*yaml.Node) *yaml.Node {
	if len(items) == 0 {
		return nil
	}
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

func listNode(words []string) *yaml.Node {
	if words == nil {
		return nil
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, w := range words {
		n.Content = append(n.Content, textNode(w))
	}
	return n
}

var attachEncoders sync.Once

// attach gives every field of every table its encoder, by name: a name
// that is not in its table panics, and TestEveryFieldEncodes fails on a
// field left without one.
func attach() {
	set(scenarioFields, map[string]func(*Scenario) *yaml.Node{
		"name":        func(s *Scenario) *yaml.Node { return textNode(s.Name) },
		"description": func(s *Scenario) *yaml.Node { return textNode(s.Description) },
		"runtime":     func(s *Scenario) *yaml.Node { return textNode(s.Runtime) },
		"algorithms":  encodeAlgorithms,
		"nodes":       func(s *Scenario) *yaml.Node { return wordNode(s.Nodes) },
		"ids":         func(s *Scenario) *yaml.Node { return wordNode(s.IDs) },
		"rank":        func(s *Scenario) *yaml.Node { return textNode(s.Rank) },
		"initiators":  func(s *Scenario) *yaml.Node { return wordNode(s.Initiators) },
		"network":     func(s *Scenario) *yaml.Node { return encodeMapping(networkFields, &s.Network) },
		"detector":    func(s *Scenario) *yaml.Node { return textNode(s.Detector) },
		"trials":      func(s *Scenario) *yaml.Node { return intNode(int64(s.Trials)) },
		"seed":        func(s *Scenario) *yaml.Node { return intNode(int64(s.Seed)) },
		"deadline":    func(s *Scenario) *yaml.Node { return textNode(s.Deadline.Text) },
		"faults":      encodeFaults,
		"expect":      func(s *Scenario) *yaml.Node { return encodeMapping(expectFields, &s.Expect) },
		"trace-hash":  func(s *Scenario) *yaml.Node { return textNode(s.TraceHash) },
		"draws":       encodeDraws,
		"hosts":       encodeHosts,
	})
	attachDraws()
	set(networkFields, map[string]func(*Network) *yaml.Node{
		"latency": func(nw *Network) *yaml.Node { return wordNode(nw.Latency) },
		"links": func(nw *Network) *yaml.Node {
			var items []*yaml.Node
			for i := range nw.Links {
				items = append(items, encodeMapping(linkFields, &nw.Links[i]))
			}
			return seqNode(items)
		},
	})
	set(linkFields, map[string]func(*LinkLatency) *yaml.Node{
		"from":    func(l *LinkLatency) *yaml.Node { return selectorNode(l.From) },
		"to":      func(l *LinkLatency) *yaml.Node { return selectorNode(l.To) },
		"latency": func(l *LinkLatency) *yaml.Node { return wordNode(l.Latency) },
	})
	set(algorithmFields, map[string]func(*Algorithm) *yaml.Node{
		"name":    func(a *Algorithm) *yaml.Node { return textNode(a.Name) },
		"variant": func(a *Algorithm) *yaml.Node { return textNode(a.Variant) },
		"params": func(a *Algorithm) *yaml.Node {
			if len(a.Params) == 0 {
				return nil
			}
			m := &yaml.Node{Kind: yaml.MappingNode}
			for _, k := range slices.Sorted(maps.Keys(a.Params)) {
				m.Content = append(m.Content, textNode(k), wordNode(a.Params[k]))
			}
			return m
		},
		"command":     func(a *Algorithm) *yaml.Node { return listNode(a.Command) },
		"topology":    func(a *Algorithm) *yaml.Node { return textNode(a.Topology) },
		"theory":      func(a *Algorithm) *yaml.Node { return textNode(a.Theory) },
		"maintenance": func(a *Algorithm) *yaml.Node { return listNode(a.Maintenance) },
	})
	attachExpect()
	attachFaults()
}

func attachExpect() {
	set(expectFields, map[string]func(*Expect) *yaml.Node{
		"safety": func(e *Expect) *yaml.Node {
			if !e.Safety {
				return nil
			}
			return textNode("always")
		},
		"correct": func(e *Expect) *yaml.Node {
			if !e.Correct {
				return nil
			}
			return textNode("always")
		},
		"liveness": func(e *Expect) *yaml.Node {
			if e.NotLive {
				return textNode("never")
			}
			if e.LiveShare > 0 {
				return textNode("at-least " + e.LiveShareText)
			}
			if e.Liveness == nil {
				return nil
			}
			return textNode("within " + e.Liveness.Text)
		},
		"messages": func(e *Expect) *yaml.Node {
			if e.Messages == nil {
				return nil
			}
			return textNode(e.Messages.Text)
		},
		"turnaround": func(e *Expect) *yaml.Node {
			if e.Turnaround == nil {
				return nil
			}
			return textNode(e.Turnaround.Text)
		},
		"columns": func(e *Expect) *yaml.Node {
			var items []*yaml.Node
			for i := range e.Columns {
				items = append(items, encodeMapping(columnFields, &e.Columns[i]))
			}
			return seqNode(items)
		},
	})
	bound := func(stat Stat) func(c *ColumnCondition) *yaml.Node {
		return func(c *ColumnCondition) *yaml.Node {
			for _, b := range c.Bounds {
				if b.Stat == stat {
					return wordNode(b.Cmp.Text)
				}
			}
			return nil
		}
	}
	set(columnFields, map[string]func(*ColumnCondition) *yaml.Node{
		"algorithm":    func(c *ColumnCondition) *yaml.Node { return textNode(c.Algorithm) },
		"variant":      func(c *ColumnCondition) *yaml.Node { return textNode(c.Variant) },
		"column":       func(c *ColumnCondition) *yaml.Node { return textNode(c.Column) },
		string(Median): bound(Median),
		string(Min):    bound(Min),
		string(Max):    bound(Max),
	})
}

// attachFaults sets the encoders of the fault fields every kind shares
// (a kind's own parameters have theirs from param).
func attachFaults() {
	sel := func(get func(f *Fault) Selector) func(f *Fault) *yaml.Node {
		return func(f *Fault) *yaml.Node { return selectorNode(get(f)) }
	}
	fieldKind.enc = func(f *Fault) *yaml.Node { return textNode(f.Kind) }
	fieldName.enc = func(f *Fault) *yaml.Node { return textNode(f.Name) }
	fieldAt.enc = func(f *Fault) *yaml.Node {
		if f.Start.Kind == AtStart && f.Start.Delay.IsZero() && f.Start.Spread.IsZero() {
			return nil
		}
		return wordNode(f.Start.String())
	}
	fieldAfterMessages.enc = func(*Fault) *yaml.Node { return nil } // at says after-messages(K)
	fieldFor.enc = func(f *Fault) *yaml.Node { return textNode(f.For.Text) }
	fieldTarget.enc = sel(func(f *Fault) Selector { return f.Target })
	fieldLinkTarget.enc = fieldTarget.enc
	fieldObservers.enc = sel(func(f *Fault) Selector { return f.Observers })
	fieldFrom.enc = sel(func(f *Fault) Selector { return f.From })
	fieldTo.enc = sel(func(f *Fault) Selector { return f.To })
	fieldPartFrom.enc, fieldPartTo.enc = fieldFrom.enc, fieldTo.enc
	fieldDirection.enc = func(f *Fault) *yaml.Node { return textNode(f.Direction) }
	fieldToxicity.enc = func(f *Fault) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f.Toxicity, 'g', -1, 64)}
	}
	fieldShape.enc = func(f *Fault) *yaml.Node { return textNode(f.Shape.String()) }
	fieldGroups.enc = func(f *Fault) *yaml.Node {
		var items []*yaml.Node
		for _, g := range f.Groups {
			items = append(items, selectorNode(g))
		}
		return seqNode(items)
	}
	set(healFields, map[string]func(*Fault) *yaml.Node{
		"heal":           func(f *Fault) *yaml.Node { return textNode(f.Name) },
		"at":             func(f *Fault) *yaml.Node { return wordNode(f.Heal.String()) },
		"after-messages": func(*Fault) *yaml.Node { return nil }, // at says after-messages(K)
	})
}

func encodeAlgorithms(s *Scenario) *yaml.Node {
	if s.AllAlgos {
		return textNode("all")
	}
	var items []*yaml.Node
	for i := range s.Algorithms {
		a := &s.Algorithms[i]
		if len(a.Params) == 0 && a.Command == nil {
			name := a.Name
			if a.Variant != "" {
				name += "/" + a.Variant
			}
			items = append(items, textNode(name))
			continue
		}
		items = append(items, encodeMapping(algorithmFields, a))
	}
	return seqNode(items)
}

func encodeFaults(s *Scenario) *yaml.Node {
	var items []*yaml.Node
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.Kind == "" {
			items = append(items, encodeMapping(healFields, f))
			continue
		}
		items = append(items, encodeMapping(faultFields(kinds[f.Kind]), f))
		if f.Heal != nil {
			// The parser hands a heal item to the fault it names
			// (resolveHeals): write it back as its own item, after.
			items = append(items, encodeMapping(healFields, f))
		}
	}
	return seqNode(items)
}

// set gives the fields of a table their encoders by name.
func set[T any](fields []field[T], encs map[string]func(*T) *yaml.Node) {
	for name, enc := range encs {
		i := slices.IndexFunc(fields, func(f field[T]) bool { return f.name == name })
		if i < 0 {
			panic("chaos: no field " + name + " to encode")
		}
		fields[i].enc = enc
	}
}

// encodeHosts writes a hosts: section back as it was read.
func encodeHosts(s *Scenario) *yaml.Node {
	if s.Hosts == nil {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(s.Hosts, &doc); err != nil || len(doc.Content) == 0 {
		panic(fmt.Sprintf("chaos: a hosts: section that decoded does not decode again: %v", err))
	}
	return doc.Content[0]
}
