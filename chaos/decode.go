package chaos

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v4"
)

// decoder walks a YAML node tree, recording errors with their positions and
// the position of every field it decodes (for errors found later, such as
// an unknown algorithm). Walking nodes by hand, rather than unmarshalling
// into structs, is what lets every message name the field as the user wrote
// it, and catch duplicate keys, anchors and wrong types uniformly.
type decoder struct {
	file string
	errs Errors
	pos  map[string]Pos
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	if len(d.errs) >= MaxErrors {
		return
	}
	e := &Error{File: d.file, Field: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

func (d *decoder) at(n *yaml.Node, path string) {
	if n != nil && n.Line > 0 { // defaults have no position
		d.pos[path] = Pos{Line: n.Line, Col: n.Column}
	}
}

// field is one key of a mapping: its documentation, and how its value is
// decoded into a T. The same tables drive the parser and the reference page.
type field[T any] struct {
	name     string
	typ      string // as the reference page names it: text, duration, selector, ...
	def      string // the default, as documented
	auto     bool   // def is YAML, decoded like a written value when the field is absent
	required bool
	doc      string
	dec      func(d *decoder, n *yaml.Node, path string, dst *T)
	// enc writes the field's value back as Format writes it: nil leaves
	// the field out (unset, or its default where reading the default
	// gives the same). Set in format.go, beside every table.
	enc func(src *T) *yaml.Node
}

// FieldDoc documents one field.
type FieldDoc struct {
	Name, Type, Default, Doc string
	Required                 bool
}

func docs[T any](fields []field[T]) []FieldDoc {
	out := make([]FieldDoc, len(fields))
	for i, f := range fields {
		out[i] = FieldDoc{Name: f.name, Type: f.typ, Default: f.def, Doc: f.doc, Required: f.required}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// describe names what a node is, for "want X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing"
	case "!!int", "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	}
	return strconv.Quote(n.Value)
}

// mapping decodes a mapping node with the given fields. Unknown keys get
// explain's message when it has one (a parameter of another fault kind),
// else a list of the known keys.
func decodeMapping[T any](d *decoder, n *yaml.Node, path string, fields []field[T], dst *T, explain func(key string) string) bool {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a mapping of fields, got %s", describe(n))
		return false
	}
	d.at(n, path)
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.errorf(k, path, "a field name must be text, got %s", describe(k))
			continue
		}
		key := k.Value
		if first, dup := seen[key]; dup {
			d.errorf(k, join(path, key), "set twice (first at line %d)", first.Line)
			continue
		}
		seen[key] = k
		i := slices.IndexFunc(fields, func(f field[T]) bool { return f.name == key })
		if i < 0 {
			msg := ""
			if explain != nil {
				msg = explain(key)
			}
			if msg == "" {
				msg = "unknown field" + suggest(key, fieldNames(fields))
			}
			d.errorf(k, join(path, key), "%s", msg)
			continue
		}
		if v.Kind == yaml.AliasNode || v.Anchor != "" {
			d.errorf(v, join(path, key), "anchors and aliases are not supported")
			continue
		}
		d.at(v, join(path, key))
		fields[i].dec(d, v, join(path, key), dst)
	}
	for _, f := range fields {
		switch {
		case seen[f.name] != nil:
		case f.required:
			d.errorf(n, join(path, f.name), "required field missing")
		case f.auto:
			// Defaults are applied by decoding the documented text, so the
			// reference page and the parser cannot disagree.
			f.dec(d, defaultNode(f.def), join(path, f.name), dst)
		}
	}
	return true
}

// defaultNode parses a documented default into a node.
func defaultNode(def string) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(def), &doc); err != nil || len(doc.Content) != 1 {
		panic("chaos: bad default " + strconv.Quote(def))
	}
	var unplace func(n *yaml.Node)
	unplace = func(n *yaml.Node) {
		n.Line, n.Column = 0, 0
		for _, c := range n.Content {
			unplace(c)
		}
	}
	unplace(doc.Content[0])
	return doc.Content[0]
}

func fieldNames[T any](fields []field[T]) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.name
	}
	return out
}

// suggest names the closest known key, or lists them all.
func suggest(key string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if dist := editDistance(key, k); dist < bestD {
			best, bestD = k, dist
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return " (known: " + strings.Join(known, ", ") + ")"
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Scalar decoders. Each reports its own error and returns ok = false.

func (d *decoder) text(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.errorf(n, path, "want text, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

// word accepts any non-null scalar as text: "8", "4..256", "1ms".
func (d *decoder) word(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		d.errorf(n, path, "want a value, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

func (d *decoder) integer(n *yaml.Node, path string, lo, hi int64) (int64, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.errorf(n, path, "want a whole number, got %s", describe(n))
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
	if err != nil || v < lo || v > hi {
		d.errorf(n, path, "want a whole number from %d to %d, got %s", lo, hi, n.Value)
		return 0, false
	}
	return v, true
}

func (d *decoder) number(n *yaml.Node, path string, lo, hi float64) (float64, bool) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
		d.errorf(n, path, "want a number, got %s", describe(n))
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil || math.IsNaN(v) || v < lo || v > hi {
		d.errorf(n, path, "want a number from %g to %g, got %s", lo, hi, n.Value)
		return 0, false
	}
	return v, true
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		d.errorf(n, path, "want true or false, got %s", describe(n))
		return false, false
	}
	return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", true
}

func (d *decoder) duration(n *yaml.Node, path string) (Duration, bool) {
	// A duration is text (5ms, 2T); a bare 0 is accepted, other numbers
	// have no unit.
	if n.Kind != yaml.ScalarNode || !(n.ShortTag() == "!!str" || n.ShortTag() == "!!int" && n.Value == "0") {
		d.errorf(n, path, "want a duration such as 5ms or 2T, got %s", describe(n))
		return Duration{}, false
	}
	s := n.Value
	v, err := ParseDuration(s)
	if err != nil {
		d.errorf(n, path, "%v", err)
		return Duration{}, false
	}
	return v, true
}

// selector reads a position, a role, or a list of them.
func (d *decoder) selector(n *yaml.Node, path string) (Selector, bool) {
	if n.Kind == yaml.SequenceNode {
		if len(n.Content) == 0 {
			d.errorf(n, path, "an empty list selects no process")
			return Selector{}, false
		}
		var parts []Selector
		for i, c := range n.Content {
			s, ok := d.selector1(c, index(path, i))
			if !ok {
				return Selector{}, false
			}
			parts = append(parts, s)
		}
		return Union(parts...), true
	}
	return d.selector1(n, path)
}

func (d *decoder) selector1(n *yaml.Node, path string) (Selector, bool) {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!int") {
		d.errorf(n, path, "want a selector (a position, %s), got %s", strings.Join(Roles, ", "), describe(n))
		return Selector{}, false
	}
	s, err := ParseSelector(n.Value)
	if err != nil {
		d.errorf(n, path, "%v", err)
		return Selector{}, false
	}
	return s, true
}

// wordOrList reads a value written either as text or as a list of whole
// numbers, and returns it as comma-separated text ("3,5,8").
func (d *decoder) wordOrList(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.SequenceNode {
		return d.word(n, path)
	}
	if len(n.Content) == 0 {
		d.errorf(n, path, "empty list")
		return "", false
	}
	parts := make([]string, len(n.Content))
	for i, c := range n.Content {
		v, ok := d.integer(c, index(path, i), 0, math.MaxInt64)
		if !ok {
			return "", false
		}
		parts[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(parts, ","), true
}

// list decodes every element of a sequence.
func (d *decoder) list(n *yaml.Node, path string, each func(c *yaml.Node, path string)) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list, got %s", describe(n))
		return
	}
	for i, c := range n.Content {
		if c.Kind == yaml.AliasNode || c.Anchor != "" {
			d.errorf(c, index(path, i), "anchors and aliases are not supported")
			continue
		}
		d.at(c, index(path, i))
		each(c, index(path, i))
	}
}
