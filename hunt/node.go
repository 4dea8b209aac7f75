package hunt

import yaml "go.yaml.in/yaml/v4"

// A candidate is written as a YAML mapping before chaos.Parse reads it;
// these build and edit that mapping's nodes.

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
}

// text is a scalar that stays text ("123" stays "123").
func text(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		n, ok := v.(*yaml.Node)
		if !ok {
			n = scalar(v.(string))
		}
		m.Content = append(m.Content, scalar(kv[i].(string)), n)
	}
	return m
}

func sequence(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// get is the value of key in mapping m, or nil.
func get(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// set puts key: v in mapping m, in place of its value if it has one;
// a nil v removes the key.
func set(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			if v == nil {
				m.Content = append(m.Content[:i], m.Content[i+2:]...)
				return
			}
			m.Content[i+1] = v
			return
		}
	}
	if v != nil {
		m.Content = append(m.Content, scalar(key), v)
	}
}

// clone copies a node tree, so that a candidate's edits leave the base's
// untouched.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = clone(k)
	}
	return &c
}
