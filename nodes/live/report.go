package live

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/electbench/electbench/nodes"
)

// ParseReport decodes one control line from a node. Step lines, one per
// event a machine handles, are most of them: they take a fast path that
// reads the few shapes appendStep writes and yields exactly what
// encoding/json would; anything else (another report type, an escaped
// string, a float, whitespace) goes to encoding/json.
func ParseReport(line []byte) (Report, error) {
	var r Report
	p := reportParser{b: line}
	if p.object(&r) && p.i == len(p.b) {
		return r, nil
	}
	r = Report{}
	err := json.Unmarshal(line, &r)
	return r, err
}

// reportParser is a cursor over a line; every method returns false to send
// the line to encoding/json.
type reportParser struct {
	b []byte
	i int
}

func (p *reportParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *reportParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// str reads a string without escapes.
func (p *reportParser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return "", false // escapes, control bytes, non-ASCII: encoding/json's job
		}
		p.i++
	}
	return "", false
}

// The values of "type" and "ev", read without allocating.
var (
	reportTypes = []string{"step", "maint", "hello", "link", "linked", "refused", "stats", "error"}
	stepEvents  = []string{"recv", "timer", "start", "initiate", "suspect"}
)

// word reads a string, returning the one of known it equals rather than a
// copy: every line has a type, and every step an event.
func (p *reportParser) word(known []string) (string, bool) {
	start := p.i
	if !p.eat('"') {
		return "", false
	}
	end := bytes.IndexByte(p.b[p.i:], '"')
	if end >= 0 {
		w := p.b[p.i : p.i+end]
		for _, k := range known {
			if string(w) == k {
				p.i += end + 1
				return k, true
			}
		}
	}
	p.i = start
	return p.str()
}

// int reads a JSON integer that fits an int64.
func (p *reportParser) int() (int64, bool) {
	start := p.i
	p.eat('-')
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || p.b[digits] == '0' && p.i-digits > 1 {
		return 0, false // no digits, or a leading zero
	}
	if c := p.peek(); c == '.' || c == 'e' || c == 'E' {
		return 0, false
	}
	v, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	return v, err == nil
}

func (p *reportParser) intField(dst *int) bool {
	v, ok := p.int()
	if !ok || int64(int(v)) != v {
		return false
	}
	*dst = int(v)
	return true
}

// uint16 reads a JSON integer into a nodes.Kind or nodes.TimerID as
// encoding/json would: no sign (not even "-0"), at most 65535.
func (p *reportParser) uint16() (uint16, bool) {
	if p.peek() == '-' {
		return 0, false
	}
	v, ok := p.int()
	if !ok || v > 1<<16-1 {
		return 0, false
	}
	return uint16(v), true
}

func (p *reportParser) bool() (bool, bool) {
	switch {
	case len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "true":
		p.i += 4
		return true, true
	case len(p.b)-p.i >= 5 && string(p.b[p.i:p.i+5]) == "false":
		p.i += 5
		return false, true
	}
	return false, false
}

// members reads an object's members, calling member for each key.
func (p *reportParser) members(member func(key string) bool) bool {
	if !p.eat('{') {
		return false
	}
	if p.eat('}') {
		return true
	}
	for {
		key, ok := p.str()
		if !ok || !p.eat(':') || !member(key) {
			return false
		}
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// elements reads an array's elements, calling element for each.
func (p *reportParser) elements(element func() bool) bool {
	if !p.eat('[') {
		return false
	}
	if p.eat(']') {
		return true
	}
	for {
		if !element() {
			return false
		}
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

func (p *reportParser) object(r *Report) bool {
	return p.members(func(key string) bool {
		var ok bool
		switch key {
		case "type":
			r.Type, ok = p.word(reportTypes)
		case "ev":
			r.Ev, ok = p.word(stepEvents)
		case "kind":
			var k uint16
			k, ok = p.uint16()
			r.Kind = nodes.Kind(k)
		case "timer":
			var t uint16
			t, ok = p.uint16()
			r.Timer = nodes.TimerID(t)
		case "phase":
			r.Phase, ok = p.str()
		case "kn":
			r.KindName, ok = p.str()
		case "km":
			r.KindMaint, ok = p.bool()
		case "tn":
			r.TimerName, ok = p.str()
		case "t":
			r.T, ok = p.int()
		case "a":
			r.A, ok = p.int()
		case "v":
			r.B, ok = p.int()
		case "from":
			ok = p.intField(&r.From)
		case "peer":
			ok = p.intField(&r.Peer)
		case "armed":
			ok = p.intField(&r.Armed)
		case "sent":
			r.Sent = r.Sent[:0]
			ok = p.elements(func() bool {
				var s Sent
				if !p.sent(&s) {
					return false
				}
				r.Sent = append(r.Sent, s)
				return true
			})
			if ok && r.Sent == nil {
				r.Sent = []Sent{}
			}
		case "decide":
			r.Decide = r.Decide[:0]
			ok = p.elements(func() bool {
				d, ok := p.str()
				r.Decide = append(r.Decide, d)
				return ok
			})
			if ok && r.Decide == nil {
				r.Decide = []string{}
			}
		case "da":
			r.DecideAfter = r.DecideAfter[:0]
			ok = p.elements(func() bool {
				var k int
				ok := p.intField(&k)
				r.DecideAfter = append(r.DecideAfter, k)
				return ok
			})
			if ok && r.DecideAfter == nil {
				r.DecideAfter = []int{}
			}
		}
		return ok
	})
}

func (p *reportParser) sent(s *Sent) bool {
	return p.members(func(key string) bool {
		var ok bool
		switch key {
		case "to":
			ok = p.intField(&s.To)
		case "k":
			var k uint16
			k, ok = p.uint16()
			s.Kind = nodes.Kind(k)
		case "r":
			s.Rank, ok = p.str()
		case "x":
			s.Aux, ok = p.str()
		case "b":
			ok = p.intField(&s.Bytes)
		case "a":
			s.A, ok = p.int()
		case "v":
			s.B, ok = p.int()
		case "d":
			s.Dropped, ok = p.bool()
		case "kn":
			s.KindName, ok = p.str()
		case "km":
			s.KindMaint, ok = p.bool()
		}
		return ok
	})
}
