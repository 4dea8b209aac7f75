package external

import (
	"strings"
	"testing"
)

// NODE-PROTOCOL.md, "Output lines" and "Mistakes": what a node may write
// during a step, and the words each mistake gets.
func TestParseOutput(t *testing.T) {
	for _, c := range []struct {
		line string
		op   int
		bad  string
	}{
		{`{"src":"n3","dest":"n4","body":{"type":"ELECTION","rank":17}}`, opMessage, ""},
		{` {"src":"n3","dest":"eb","body":{"type":"done"}} `, opDone, ""},
		{`{"src":"n3","dest":"eb","body":{"type":"set_timer","timer":"T1","ms":2.0}}`, opSetTimer, ""},
		{`{"src":"n3","dest":"eb","body":{"type":"cancel_timer","timer":"t-1"}}`, opCancelTimer, ""},
		{`{"src":"n3","dest":"eb","body":{"type":"leader","leader":"n7"}}`, opLeader, ""},
		{`{"src":"n3","dest":"eb","body":{"type":"log","text":"hi"}}`, opLog, ""},
		{`{"src":"n3","dest":"eb","body":{"type":"init_ok","in_reply_to":1,"maintenance":["PING"]}}`, opInitOK, ""},
		{`{"src":"n3","dest":"eb","body":{"type":"done","future":1},"also":2}`, opDone, ""},
		{`hello`, 0, "not a JSON object"},
		{`[1,2]`, 0, "not a JSON object"},
		{`{"src":"n3","dest":"eb","body":{"type":"done"}} {}`, 0, "not one JSON object"},
		{`{"dest":"eb","body":{"type":"done"}}`, 0, `no "src"`},
		{`{"src":"n2","dest":"eb","body":{"type":"done"}}`, 0, `not the node's own name "n3"`},
		{`{"src":"n3","body":{"type":"done"}}`, 0, `no "dest"`},
		{`{"src":"n3","dest":"eb","body":"done"}`, 0, `"body" is not a JSON object`},
		{`{"src":"n3","dest":"eb","body":{}}`, 0, `no "type"`},
		{`{"src":"n3","dest":"eb","body":{"type":7}}`, 0, "wrong type"},
		{`{"src":"n3","dest":"n4","body":{"type":"has space"}}`, 0, "is not 1 to 64 characters"},
		{`{"src":"n3","dest":"n4","body":{"type":"` + strings.Repeat("A", 65) + `"}}`, 0, "is not 1 to 64 characters"},
		{`{"src":"n3","dest":"eb","body":{"type":"teleport"}}`, 0, `unknown action "teleport"`},
		{`{"src":"n3","dest":"eb","body":{"type":"set_timer","timer":"T1"}}`, 0, `set_timer needs "ms"`},
		{`{"src":"n3","dest":"eb","body":{"type":"set_timer","timer":"T1","ms":-1}}`, 0, `set_timer needs "ms"`},
		{`{"src":"n3","dest":"eb","body":{"type":"set_timer","timer":"T1","ms":1e300}}`, 0, `set_timer needs "ms"`},
		{`{"src":"n3","dest":"eb","body":{"type":"set_timer","ms":1}}`, 0, `needs "timer"`},
		{`{"src":"n3","dest":"eb","body":{"type":"leader"}}`, 0, `leader needs "leader"`},
		{`{"src":"n3","dest":"eb","body":{"type":"init_ok","maintenance":["a b"]}}`, 0, "maintenance type"},
	} {
		o, err := parseOutput([]byte(c.line), "n3")
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s: %v", c.line, err)
		case c.bad == "" && o.op != c.op:
			t.Errorf("%s: op %d, want %d", c.line, o.op, c.op)
		case c.bad != "" && (err == nil || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%s: error %v, want one saying %q", c.line, err, c.bad)
		}
	}
	// A message's body is kept byte for byte: it is what is counted.
	o, _ := parseOutput([]byte(`{"src":"n3","dest":"n4","body":{ "type" : "X",  "k":[1, 2] }}`), "n3")
	if string(o.body) != `{ "type" : "X",  "k":[1, 2] }` {
		t.Errorf("body %q not as written", o.body)
	}
}

// FuzzParseOutput: no line makes the decoder panic, and whatever it accepts
// is one of the protocol's lines with a valid type or action.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		`{"src":"n3","dest":"n4","body":{"type":"ELECTION","rank":17}}`,
		`{"src":"n3","dest":"eb","body":{"type":"set_timer","timer":"T1","ms":2.0}}`,
		`{"src":"n3","dest":"eb","body":{"type":"init_ok","in_reply_to":1,"maintenance":["PING"]}}`,
		`{"src":"n3","dest":"eb","body":{"type":"leader","leader":"n7"}}`,
		`null`, `{}`, `{"src":"n3","dest":"eb","body":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		o, err := parseOutput(line, "n3")
		if err != nil {
			return
		}
		if o.op == opMessage && (!typeRE.MatchString(o.typ) || len(o.body) == 0 || o.body[0] != '{') {
			t.Fatalf("accepted message %+v", o)
		}
		if o.op == opSetTimer && (o.ms < 0 || o.ms > maxTimerMs || !typeRE.MatchString(o.timer)) {
			t.Fatalf("accepted timer %+v", o)
		}
	})
}
