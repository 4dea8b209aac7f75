package chaos

import (
	"strconv"
	"strings"

	"github.com/electbench/electbench/nodes/trial"

	yaml "go.yaml.in/yaml/v4"
)

// maxDrawLists bounds draws.processes: one list a process.
const maxDrawLists = 1 << 12

// drawsFields are the keys of a scenario's draws: the recorded prefix of
// its one trial's random draws (trial.Draws), which `electbench shrink`
// writes once it has replaced them by simpler ones (docs/SHRINK.md).
var drawsFields = []field[trial.Draws]{
	{name: "network", typ: "list", def: "none",
		doc: "the network's draws (link delays), in order",
		dec: func(d *decoder, n *yaml.Node, path string, dr *trial.Draws) {
			dr.Net, _ = d.draws(n, path)
		}},
	{name: "processes", typ: "list", def: "none",
		doc: "by position, each process's draws (its timers' random lengths), in order",
		dec: func(d *decoder, n *yaml.Node, path string, dr *trial.Draws) {
			if n.Kind == yaml.SequenceNode && len(n.Content) > maxDrawLists {
				d.errorf(n, path, "%d lists: at most %d", len(n.Content), maxDrawLists)
				return
			}
			d.list(n, path, func(c *yaml.Node, p string) {
				v, _ := d.draws(c, p)
				dr.Procs = append(dr.Procs, v)
			})
		}},
}

// draws reads a list of draws: whole numbers from 0 to 2^64-1, at most
// trial.MaxRecorded of them.
func (d *decoder) draws(n *yaml.Node, path string) ([]uint64, bool) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list of draws (whole numbers from 0 to 2^64-1), got %s", describe(n))
		return nil, false
	}
	if len(n.Content) > trial.MaxRecorded {
		d.errorf(n, path, "%d draws: at most %d", len(n.Content), trial.MaxRecorded)
		return nil, false
	}
	out := make([]uint64, 0, len(n.Content))
	for i, c := range n.Content {
		if c.Kind != yaml.ScalarNode || c.ShortTag() != "!!int" {
			d.errorf(c, index(path, i), "want a draw (a whole number from 0 to 2^64-1), got %s", describe(c))
			return nil, false
		}
		v, err := strconv.ParseUint(strings.ReplaceAll(c.Value, "_", ""), 0, 64)
		if err != nil {
			d.errorf(c, index(path, i), "want a draw (a whole number from 0 to 2^64-1), got %s", c.Value)
			return nil, false
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, true // as Format writes none
	}
	return out, true
}

// drawsNode writes a list of draws on one line; nil for none.
func drawsNode(v []uint64) *yaml.Node {
	if len(v) == 0 {
		return nil
	}
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, x := range v {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(x, 10)})
	}
	return n
}

// encodeDraws writes a scenario's draws; nil for none. A process without
// draws is an empty list, so that the others keep their positions.
func encodeDraws(s *Scenario) *yaml.Node {
	if s.Draws == nil {
		return nil
	}
	return encodeMapping(drawsFields, s.Draws)
}

func attachDraws() {
	set(drawsFields, map[string]func(*trial.Draws) *yaml.Node{
		"network": func(dr *trial.Draws) *yaml.Node { return drawsNode(dr.Net) },
		"processes": func(dr *trial.Draws) *yaml.Node {
			if len(dr.Procs) == 0 {
				return nil
			}
			n := &yaml.Node{Kind: yaml.SequenceNode}
			for _, p := range dr.Procs {
				item := drawsNode(p)
				if item == nil {
					item = &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
				}
				n.Content = append(n.Content, item)
			}
			return n
		},
	})
}
