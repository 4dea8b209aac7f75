package external

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
)

// Eb is electbench's own name in the protocol.
const Eb = "eb"

// What a node writes during a step (NODE-PROTOCOL.md, "Output lines").
const (
	opMessage = iota // a message to a peer
	opSetTimer
	opCancelTimer
	opLeader
	opLog
	opDone
	opInitOK
)

// output is one line a node wrote, decoded and checked.
type output struct {
	op   int
	dest string // opMessage: the peer
	typ  string // opMessage: the body's type
	body []byte // opMessage: the body exactly as written (aliases the line)

	timer       string   // opSetTimer, opCancelTimer
	ms          float64  // opSetTimer
	leader      string   // opLeader
	text        string   // opLog
	maintenance []string // opInitOK
	inReplyTo   *int64   // opInitOK
	reuse       bool     // opInitOK: the program may be kept for the next trial
}

var typeRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

type envelope struct {
	Src  *string         `json:"src"`
	Dest *string         `json:"dest"`
	Body json.RawMessage `json:"body"`
}

type actionBody struct {
	Type        *string  `json:"type"`
	Timer       *string  `json:"timer"`
	Ms          *float64 `json:"ms"`
	Leader      *string  `json:"leader"`
	Text        *string  `json:"text"`
	Maintenance []string `json:"maintenance"`
	InReplyTo   *int64   `json:"in_reply_to"`
	Reuse       bool     `json:"reuse"`
}

// maxTimerMs bounds a timer: a day, far beyond any run's deadline, and
// small enough that its nanoseconds fit a time.Duration exactly.
const maxTimerMs = 24 * 3600 * 1000

// parseOutput decodes one line written by the node called self. It checks
// everything the line alone can tell: that it is one JSON object in the
// envelope, from self, with a body object whose type is a known action (to
// eb) or a valid message type (to anyone else), and the action's fields.
// Whether a message's destination is a peer is the caller's to check. The
// error says what is wrong, in words for the user.
func parseOutput(line []byte, self string) (output, error) {
	var o output
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return o, errors.New("not a JSON object")
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		return o, fmt.Errorf("not one JSON object in the envelope: %s", jsonErr(err))
	}
	switch {
	case env.Src == nil:
		return o, errors.New(`no "src"`)
	case *env.Src != self:
		return o, fmt.Errorf(`"src" is %q, not the node's own name %q`, cut(*env.Src, 40), self)
	case env.Dest == nil:
		return o, errors.New(`no "dest"`)
	case len(env.Body) == 0 || env.Body[0] != '{':
		return o, errors.New(`"body" is not a JSON object`)
	}
	var b actionBody
	if err := json.Unmarshal(env.Body, &b); err != nil {
		return o, fmt.Errorf("body: %s", jsonErr(err))
	}
	if b.Type == nil {
		return o, errors.New(`body has no "type"`)
	}
	typ := *b.Type
	if *env.Dest != Eb {
		if !typeRE.MatchString(typ) {
			return o, fmt.Errorf("message type %q is not 1 to 64 characters of A-Z a-z 0-9 _ -", cut(typ, 70))
		}
		o.op, o.dest, o.typ, o.body = opMessage, *env.Dest, typ, env.Body
		return o, nil
	}
	switch typ {
	case "done":
		o.op = opDone
	case "set_timer", "cancel_timer":
		if b.Timer == nil || !typeRE.MatchString(*b.Timer) {
			return o, fmt.Errorf(`%s needs "timer", a name of 1 to 64 characters of A-Z a-z 0-9 _ -`, typ)
		}
		o.op, o.timer = opCancelTimer, *b.Timer
		if typ == "set_timer" {
			if b.Ms == nil || math.IsNaN(*b.Ms) || *b.Ms < 0 || *b.Ms > maxTimerMs {
				return o, fmt.Errorf(`set_timer needs "ms", a number of milliseconds from 0 to %d`, maxTimerMs)
			}
			o.op, o.ms = opSetTimer, *b.Ms
		}
	case "leader":
		if b.Leader == nil {
			return o, errors.New(`leader needs "leader", a node's name`)
		}
		o.op, o.leader = opLeader, *b.Leader
	case "log":
		o.op = opLog
		if b.Text != nil {
			o.text = *b.Text
		}
	case "init_ok":
		for _, m := range b.Maintenance {
			if !typeRE.MatchString(m) {
				return o, fmt.Errorf("maintenance type %q is not 1 to 64 characters of A-Z a-z 0-9 _ -", cut(m, 70))
			}
		}
		o.op, o.maintenance, o.inReplyTo, o.reuse = opInitOK, b.Maintenance, b.InReplyTo, b.Reuse
	default:
		return o, fmt.Errorf("unknown action %q", cut(typ, 70))
	}
	return o, nil
}

// jsonErr words a decoding error without Go type names.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type (%s)", te.Field, te.Value)
	}
	return err.Error()
}

// jsonMarshal encodes v as one line of JSON.
func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
