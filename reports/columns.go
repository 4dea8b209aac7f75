package reports

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// StableColumns is how many leading entries of Columns DESIGN.md fixes. Every
// results file ever written starts with them, so a reader requires them and an
// appending writer accepts any older header that is a prefix at least this long.
const StableColumns = 24

// column binds one name of Columns to the Row field it holds: how the field is
// written as a CSV cell and as a JSON value, and how a cell is parsed back.
type column struct {
	name string
	cell func(r *Row) string
	json func(b []byte, r *Row) []byte
	// csv appends the cell as results.csv holds it: Printable(cell(r)),
	// quoted where encoding/csv quotes.
	csv   func(b []byte, r *Row) []byte
	parse func(r *Row, s string) error
	// number reads a numeric column's cell as a number, ok = false for an
	// empty optional cell; nil for a column of text, flags or counts.
	number func(r *Row) (v float64, ok bool)
	// counts is the field of a counts column, whose parsed cells a
	// reader shares among rows (decoder.counts); nil for any other.
	counts func(r *Row) *Counts
	// text says that parse keeps the cell's text (a string, or the kind
	// names of counts): the reader hands it a copy of its own, shared by
	// repeats (decoder.intern), so that a row holds none of its line.
	text bool
	// canon makes the field what parse reads back from its cell (Row.asRead),
	// where a cell does not hold the field exactly: Printable text, a
	// quiet NaN, an Unseen count; nil where it does.
	canon func(r *Row)
}

// NumericColumn reports whether name is a column of Columns that holds a
// number (optional numbers included): what a scenario's expectations on
// columns may judge. A column added with the number codecs below is one
// without further change.
func NumericColumn(name string) bool {
	c, ok := columnNamed(name)
	return ok && c.number != nil
}

// Number reads the numeric column name of r: ok is false when its cell is
// empty (an optional number not set) or the column is not numeric.
func (r *Row) Number(name string) (v float64, ok bool) {
	c, found := columnNamed(name)
	if !found || c.number == nil {
		return 0, false
	}
	return c.number(r)
}

func columnNamed(name string) (column, bool) {
	for _, c := range columns {
		if c.name == name {
			return c, true
		}
	}
	return column{}, false
}

// columns is Columns with its codecs, in the same order (TestColumnsMatch).
var columns = []column{
	stringCol("algorithm", func(r *Row) *string { return &r.Algorithm }),
	stringCol("variant", func(r *Row) *string { return &r.Variant }),
	stringCol("runtime", func(r *Row) *string { return &r.Runtime }),
	stringCol("scenario", func(r *Row) *string { return &r.Scenario }),
	intCol("nodes", func(r *Row) *int { return &r.Nodes }),
	stringCol("arrangement", func(r *Row) *string { return &r.Arrangement }),
	stringCol("initiators", func(r *Row) *string { return &r.Initiators }),
	intCol("trial", func(r *Row) *int { return &r.Trial }),
	uint64Col("seed", func(r *Row) *uint64 { return &r.Seed }),
	unseenCol("messages", func(r *Row) *int64 { return &r.Messages }),
	countsCol("messages_by_kind", func(r *Row) *Counts { return &r.MessagesByKind }),
	unseenCol("bytes", func(r *Row) *int64 { return &r.Bytes }),
	unseenCol("timeouts", func(r *Row) *int64 { return &r.Timeouts }),
	countsCol("timeouts_by_kind", func(r *Row) *Counts { return &r.TimeoutsByKind }),
	optFloatCol("turnaround_s", func(r *Row) *Opt[float64] { return &r.TurnaroundS }),
	optFloatCol("turnaround_t", func(r *Row) *Opt[float64] { return &r.TurnaroundT }),
	optFloatCol("decided_s", func(r *Row) *Opt[float64] { return &r.DecidedS }),
	optFloatCol("decided_t", func(r *Row) *Opt[float64] { return &r.DecidedT }),
	stringCol("leader", func(r *Row) *string { return &r.Leader }),
	boolCol("correct", func(r *Row) *bool { return &r.Correct }),
	intCol("safety_violations", func(r *Row) *int { return &r.SafetyViolations }),
	boolCol("live", func(r *Row) *bool { return &r.Live }),
	optIntCol("theory_messages", func(r *Row) *Opt[int64] { return &r.TheoryMessages }),
	stringCol("error", func(r *Row) *string { return &r.Error }),
	optFloatCol("detect_s", func(r *Row) *Opt[float64] { return &r.DetectS }),
	optFloatCol("failover_s", func(r *Row) *Opt[float64] { return &r.FailoverS }),
	optFloatCol("failover_t", func(r *Row) *Opt[float64] { return &r.FailoverT }),
	optIntCol("terms", func(r *Row) *Opt[int64] { return &r.Terms }),
	optIntCol("split_votes", func(r *Row) *Opt[int64] { return &r.SplitVotes }),
	optIntCol("theory_bound", func(r *Row) *Opt[int64] { return &r.TheoryBound }),
	stringCol("latency", func(r *Row) *string { return &r.Latency }),
	floatCol("t_s", func(r *Row) *float64 { return &r.TS }),
	int64Col("events", func(r *Row) *int64 { return &r.Events }),
	stringCol("violation", func(r *Row) *string { return &r.Violation }),
	stringCol("faults", func(r *Row) *string { return &r.Faults }),
	stringCol("expect", func(r *Row) *string { return &r.Expect }),
	stringCol("term_leaders", func(r *Row) *string { return &r.TermLeaders }),
	optIntCol("anonymous_refused", func(r *Row) *Opt[int64] { return &r.AnonymousRefused }),
	floatCol("d_s", func(r *Row) *float64 { return &r.DS }),
	stringCol("budget", func(r *Row) *string { return &r.Budget }),
	optFloatCol("delay_mean_s", func(r *Row) *Opt[float64] { return &r.DelayMeanS }),
	optFloatCol("delay_p99_s", func(r *Row) *Opt[float64] { return &r.DelayP99S }),
	optFloatCol("turnaround_tm", func(r *Row) *Opt[float64] { return &r.TurnaroundTM }),
	optIntCol("entries", func(r *Row) *Opt[int64] { return &r.Entries }),
	optFloatCol("entry_messages", func(r *Row) *Opt[float64] { return &r.EntryMessages }),
	optFloatCol("exit_messages", func(r *Row) *Opt[float64] { return &r.ExitMessages }),
	optFloatCol("client_delay_s", func(r *Row) *Opt[float64] { return &r.ClientDelayS }),
	optFloatCol("client_delay_t", func(r *Row) *Opt[float64] { return &r.ClientDelayT }),
	optFloatCol("sync_delay_s", func(r *Row) *Opt[float64] { return &r.SyncDelayS }),
	optFloatCol("sync_delay_t", func(r *Row) *Opt[float64] { return &r.SyncDelayT }),
	optFloatCol("throughput", func(r *Row) *Opt[float64] { return &r.Throughput }),
	optIntCol("voting_set", func(r *Row) *Opt[int64] { return &r.VotingSet }),
	optIntCol("overruns", func(r *Row) *Opt[int64] { return &r.Overruns }),
	optIntCol("reruns", func(r *Row) *Opt[int64] { return &r.Reruns }),
	optIntCol("elections", func(r *Row) *Opt[int64] { return &r.Elections }),
	optIntCol("disruptions", func(r *Row) *Opt[int64] { return &r.Disruptions }),
	optFloatCol("leaderless_s", func(r *Row) *Opt[float64] { return &r.LeaderlessS }),
	optFloatCol("leaderless_t", func(r *Row) *Opt[float64] { return &r.LeaderlessT }),
	optFloatCol("stale_leader_s", func(r *Row) *Opt[float64] { return &r.StaleLeaderS }),
	optIntCol("term_inflation", func(r *Row) *Opt[int64] { return &r.TermInflation }),
	optIntCol("heal_disruptions", func(r *Row) *Opt[int64] { return &r.HealDisruptions }),
	stringCol("disputes", func(r *Row) *string { return &r.Disputes }),
	optFloatCol("clock_error_s", func(r *Row) *Opt[float64] { return &r.ClockErrorS }),
}

// FormatFloat is how every float in a results file is written: the shortest
// decimal that reads back to the same float64, never an exponent (11 → "11",
// 0.005 → "0.005").
func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// appendFloat appends v as FormatFloat writes it.
func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', -1, 64) }

// errEmpty reports an empty cell in a column that must hold a value.
var errEmpty = errors.New("empty cell")

func stringCol(name string, f func(*Row) *string) column {
	return column{
		name:  name,
		cell:  func(r *Row) string { return *f(r) },
		json:  func(b []byte, r *Row) []byte { return appendJSONString(b, *f(r)) },
		csv:   func(b []byte, r *Row) []byte { return appendCSVText(b, *f(r)) },
		parse: func(r *Row, s string) error { *f(r) = s; return nil },
		canon: func(r *Row) {
			if s := f(r); !plainASCII(*s) {
				*s = Printable(*s)
			}
		},
		text: true,
	}
}

func intCol(name string, f func(*Row) *int) column {
	return column{
		name:   name,
		cell:   func(r *Row) string { return strconv.Itoa(*f(r)) },
		json:   func(b []byte, r *Row) []byte { return strconv.AppendInt(b, int64(*f(r)), 10) },
		csv:    func(b []byte, r *Row) []byte { return strconv.AppendInt(b, int64(*f(r)), 10) },
		number: func(r *Row) (float64, bool) { return float64(*f(r)), true },
		parse: func(r *Row, s string) error {
			v, err := parseInt(s, strconv.IntSize)
			*f(r) = int(v)
			return err
		},
	}
}

func int64Col(name string, f func(*Row) *int64) column {
	return column{
		name:   name,
		cell:   func(r *Row) string { return strconv.FormatInt(*f(r), 10) },
		json:   func(b []byte, r *Row) []byte { return strconv.AppendInt(b, *f(r), 10) },
		csv:    func(b []byte, r *Row) []byte { return strconv.AppendInt(b, *f(r), 10) },
		number: func(r *Row) (float64, bool) { return float64(*f(r)), true },
		parse: func(r *Row, s string) error {
			v, err := parseInt(s, 64)
			*f(r) = v
			return err
		},
	}
}

// unseenCol is a count that is NA, an empty cell (JSON null), when the
// row's messages were not visible (Row.Unseen); an empty cell reads back
// as that.
func unseenCol(name string, f func(*Row) *int64) column {
	c := int64Col(name, f)
	cell, json, csv, parse := c.cell, c.json, c.csv, c.parse
	c.cell = func(r *Row) string {
		if r.Unseen {
			return ""
		}
		return cell(r)
	}
	c.csv = func(b []byte, r *Row) []byte {
		if r.Unseen {
			return b
		}
		return csv(b, r)
	}
	c.json = func(b []byte, r *Row) []byte {
		if r.Unseen {
			return append(b, "null"...)
		}
		return json(b, r)
	}
	c.number = func(r *Row) (float64, bool) { return float64(*f(r)), !r.Unseen }
	c.canon = func(r *Row) {
		if r.Unseen {
			*f(r) = 0
		}
	}
	c.parse = func(r *Row, s string) error {
		if s == "" {
			r.Unseen, *f(r) = true, 0
			return nil
		}
		return parse(r, s)
	}
	return c
}

func uint64Col(name string, f func(*Row) *uint64) column {
	return column{
		name:   name,
		cell:   func(r *Row) string { return strconv.FormatUint(*f(r), 10) },
		json:   func(b []byte, r *Row) []byte { return strconv.AppendUint(b, *f(r), 10) },
		csv:    func(b []byte, r *Row) []byte { return strconv.AppendUint(b, *f(r), 10) },
		number: func(r *Row) (float64, bool) { return float64(*f(r)), true },
		parse: func(r *Row, s string) error {
			if s == "" {
				return errEmpty
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return fmt.Errorf("not an unsigned integer: %q", s)
			}
			*f(r) = v
			return nil
		},
	}
}

func floatCol(name string, f func(*Row) *float64) column {
	return column{
		name:   name,
		cell:   func(r *Row) string { return FormatFloat(*f(r)) },
		json:   func(b []byte, r *Row) []byte { return appendJSONFloat(b, *f(r)) },
		csv:    func(b []byte, r *Row) []byte { return appendFloat(b, *f(r)) },
		number: func(r *Row) (float64, bool) { return *f(r), true },
		parse: func(r *Row, s string) error {
			if s == "" {
				return errEmpty
			}
			v, err := parseFloat(s)
			*f(r) = v
			return err
		},
		canon: func(r *Row) {
			if v := f(r); *v != *v {
				*v = math.NaN()
			}
		},
	}
}

func boolCol(name string, f func(*Row) *bool) column {
	return column{
		name: name,
		cell: func(r *Row) string { return strconv.FormatBool(*f(r)) },
		json: func(b []byte, r *Row) []byte { return strconv.AppendBool(b, *f(r)) },
		csv:  func(b []byte, r *Row) []byte { return strconv.AppendBool(b, *f(r)) },
		parse: func(r *Row, s string) error {
			switch s {
			case "true":
				*f(r) = true
			case "false":
				*f(r) = false
			case "":
				return errEmpty
			default:
				return fmt.Errorf("not true or false: %q", s)
			}
			return nil
		},
	}
}

func optFloatCol(name string, f func(*Row) *Opt[float64]) column {
	return column{
		name: name,
		cell: func(r *Row) string { return f(r).String() },
		json: func(b []byte, r *Row) []byte {
			if o := f(r); o.IsSet() {
				return appendJSONFloat(b, o.Get())
			}
			return append(b, "null"...)
		},
		number: func(r *Row) (float64, bool) { return f(r).Value() },
		csv: func(b []byte, r *Row) []byte {
			if o := f(r); o.IsSet() {
				return appendFloat(b, o.Get())
			}
			return b
		},
		parse: func(r *Row, s string) error {
			if s == "" {
				*f(r) = Opt[float64]{}
				return nil
			}
			// A parsed NaN is quiet: never the pattern of an unset Opt.
			v, err := parseFloat(s)
			*f(r) = Some(v)
			return err
		},
		canon: func(r *Row) {
			if o := f(r); o.IsSet() && o.Get() != o.Get() {
				*o = Some(math.NaN())
			}
		},
	}
}

func optIntCol(name string, f func(*Row) *Opt[int64]) column {
	return column{
		name: name,
		cell: func(r *Row) string { return f(r).String() },
		json: func(b []byte, r *Row) []byte {
			if o := f(r); o.IsSet() {
				return strconv.AppendInt(b, o.Get(), 10)
			}
			return append(b, "null"...)
		},
		number: func(r *Row) (float64, bool) { o := f(r); return float64(o.Get()), o.IsSet() },
		csv: func(b []byte, r *Row) []byte {
			if o := f(r); o.IsSet() {
				return strconv.AppendInt(b, o.Get(), 10)
			}
			return b
		},
		parse: func(r *Row, s string) error {
			if s == "" {
				*f(r) = Opt[int64]{}
				return nil
			}
			v, err := parseInt(s, 64)
			if err == nil && !OptHolds(v) {
				// The one number an Opt cannot hold (it marks an unset one).
				return fmt.Errorf("integer out of range: %q", s)
			}
			*f(r) = Some(v)
			return err
		},
	}
}

func countsCol(name string, f func(*Row) *Counts) column {
	return column{
		name:   name,
		counts: f,
		cell:   func(r *Row) string { return f(r).String() },
		csv:    func(b []byte, r *Row) []byte { return appendCSVCounts(b, *f(r)) },
		json: func(b []byte, r *Row) []byte {
			b = append(b, '{')
			for i, kc := range *f(r) {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, kc.Kind)
				b = append(b, ':')
				b = strconv.AppendInt(b, kc.N, 10)
			}
			return append(b, '}')
		},
		parse: func(r *Row, s string) error {
			c, err := ParseCounts(s)
			*f(r) = c
			return err
		},
		canon: func(r *Row) { *f(r) = canonCounts(*f(r)) },
		text:  true,
	}
}

// canonCounts is c as ParseCounts reads back its cell: nil for none, the
// kinds Printable. A kind that Printable makes another's (a row no reader
// of results.csv could read) is left as it is.
func canonCounts(c Counts) Counts {
	if len(c) == 0 {
		return nil
	}
	if !slices.ContainsFunc(c, func(kc KindCount) bool { return !plainASCII(kc.Kind) }) {
		return c
	}
	read, err := ParseCounts(Printable(c.String()))
	if err != nil {
		return c
	}
	return read
}

func parseInt(s string, bits int) (int64, error) {
	if s == "" {
		return 0, errEmpty
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return 0, fmt.Errorf("not an integer: %q", s)
	}
	return v, nil
}

func parseFloat(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a number: %q", s)
	}
	return v, nil
}

// String is the cell of an optional number: empty when unset, decimal
// otherwise (floats as FormatFloat writes them).
func (o Opt[T]) String() string {
	if !o.IsSet() {
		return ""
	}
	switch v := any(o.Get()).(type) {
	case float64:
		return FormatFloat(v)
	case int64:
		return strconv.FormatInt(v, 10)
	}
	panic("reports: Opt of an unexpected type")
}

// ParseCounts parses the KIND=n;KIND=n form Counts.String writes. The empty
// string is no counts. Kinds keep the order they are given in; a repeated or
// empty kind is an error.
func ParseCounts(s string) (Counts, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ";")
	c := make(Counts, 0, len(parts))
	seen := make(map[string]bool, len(parts))
	for _, p := range parts {
		kind, n, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("count %q is not KIND=n", p)
		}
		if kind == "" {
			return nil, fmt.Errorf("count %q has no kind", p)
		}
		if seen[kind] {
			return nil, fmt.Errorf("kind %q counted twice", kind)
		}
		seen[kind] = true
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("count of %q is not an integer: %q", kind, n)
		}
		c = append(c, KindCount{Kind: kind, N: v})
	}
	return c, nil
}

// checkCounts reports a kind name that Counts.String could not write so that
// ParseCounts reads it back.
func checkCounts(col string, c Counts) error {
	// A row counts a few kinds: the earlier ones compared, not a map made
	// for them, two a row the writer checks (issue 42).
	var seen map[string]bool
	if len(c) > countsScan {
		seen = make(map[string]bool, len(c))
	}
	for i, kc := range c {
		if kc.Kind == "" || strings.ContainsAny(kc.Kind, ";=") {
			return fmt.Errorf("%s: kind name %q is empty or contains ';' or '='", col, kc.Kind)
		}
		twice := seen[kc.Kind]
		if seen == nil {
			twice = slices.ContainsFunc(c[:i], func(e KindCount) bool { return e.Kind == kc.Kind })
		}
		if twice {
			return fmt.Errorf("%s: kind %q counted twice", col, kc.Kind)
		}
		if seen != nil {
			seen[kc.Kind] = true
		}
	}
	return nil
}

// countsScan is how many kinds checkCounts compares before it makes a map.
const countsScan = 16

// appendJSONFloat writes v as a JSON number in FormatFloat's form. JSON has no
// NaN or infinity, so those become null.
func appendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// appendJSONString writes s as a JSON string. Unlike encoding/json it leaves
// <, > and & alone, so result files stay readable; invalid UTF-8 becomes
// U+FFFD as it must in JSON.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}
