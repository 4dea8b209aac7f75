package main

import (
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/electbench/electbench/reports"
)

// replayLine is a failing-trial card's Replay command in report.html.
var replayLine = regexp.MustCompile(`Replay: <code>([^<]*)</code>`)

// cmdReplays runs the first K Replay commands of DIR/report.html (every
// one without K) and checks that each ran exactly one trial whose row is
// the card's row: its seed, verdicts (correct, live, safety violations,
// expectation) and first violation, with a trace, exiting 1 exactly when
// the row fails its scenario's expectation: replays DIR [K]
func cmdReplays(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: replays DIR [K]")
	}
	k := -1
	if len(args) == 2 {
		if _, err := fmt.Sscan(args[1], &k); err != nil {
			ts.Fatalf("replays: K %q: %v", args[1], err)
		}
	}
	found := replayLine.FindAllStringSubmatch(ts.ReadFile(filepath.Join(args[0], "report.html")), k)
	if len(found) == 0 {
		ts.Fatalf("replays: %s/report.html has no Replay line", args[0])
	}
	rows, err := reports.ReadFile(ts.MkAbs(filepath.Join(args[0], reports.ResultsCSV)))
	if err != nil {
		ts.Fatalf("replays: %v", err)
	}
	for _, m := range found {
		replayOne(ts, html.UnescapeString(m[1]), rows)
	}
}

// cmdReplayLine runs one command as a Replay line would be run, and
// checks it as replays checks the report's lines against DIR's rows: for
// the trials a report gives no line (those whose outcome their scenario
// expects): replayline DIR electbench run ... --trial ID --out replay
func cmdReplayLine(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: replayline DIR electbench ARGS...")
	}
	rows, err := reports.ReadFile(ts.MkAbs(filepath.Join(args[0], reports.ResultsCSV)))
	if err != nil {
		ts.Fatalf("replayline: %v", err)
	}
	var quoted []string
	for _, a := range args[1:] {
		quoted = append(quoted, shellQuote(a))
	}
	replayOne(ts, strings.Join(quoted, " "), rows)
}

// replayOne runs one Replay command and compares its one row with the
// row of rows it replays.
func replayOne(ts *testscript.TestScript, line string, rows []reports.Row) {
	words, err := shellWords(line)
	if err != nil || len(words) < 2 || words[0] != "electbench" {
		ts.Fatalf("replays: %q is not an electbench command (%v)", line, err)
	}
	ts.Logf("replaying: %s", line)
	out := ts.MkAbs("replay")
	ts.Check(os.RemoveAll(out))
	code := 0
	if err := ts.Exec("electbench", words[1:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("replays: %v", err)
		}
		code = ee.ExitCode()
	}
	got, err := reports.ReadFile(filepath.Join(out, reports.ResultsCSV))
	if err != nil || len(got) != 1 {
		ts.Fatalf("replays: %s: %d rows, want 1 (%v)", line, len(got), err)
	}
	g := got[0]
	var want *reports.Row
	for i := range rows {
		if rows[i].Key() == g.Key() {
			want = &rows[i]
		}
	}
	if want == nil {
		ts.Fatalf("replays: %s ran %s, no row of the run", line, trialID(&g))
	}
	type verdict struct {
		Correct, Live     bool
		SafetyViolations  int
		Expect, Violation string
	}
	gv := verdict{g.Correct, g.Live, g.SafetyViolations, g.Expect, g.Violation}
	wv := verdict{want.Correct, want.Live, want.SafetyViolations, want.Expect, want.Violation}
	if gv != wv {
		ts.Fatalf("replays: %s gave %+v, the run's row %+v", line, gv, wv)
	}
	if wantCode := failCode(want.Expect); code != wantCode {
		ts.Fatalf("replays: %s exited %d, want %d (expect %q)", line, code, wantCode, want.Expect)
	}
	if ts.ReadFile(filepath.Join(out, TraceFile)) == "" {
		ts.Fatalf("replays: %s wrote no trace", line)
	}
}

// failCode is the exit code of a run whose one row's expect column is
// expect: 1 when it failed.
func failCode(expect string) int {
	if strings.HasPrefix(expect, "fail") {
		return 1
	}
	return 0
}

// shellWords splits a command line as a POSIX shell would the lines
// shellQuote writes: words apart by spaces, single quotes literal.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case c == ' ':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case strings.IndexByte("\"$`", c) >= 0:
			return nil, fmt.Errorf("unquoted %q at %d", c, i)
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, errors.New("an unclosed quote")
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// TestShellWords pins that a line shellQuote wrote splits back into its
// words, quotes and quoted quotes included.
func TestShellWords(t *testing.T) {
	args := []string{"electbench", "run", "--crash", "random(2)@uniform(1T,2T)", "it's", "a b", "plain"}
	var quoted []string
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	got, err := shellWords(strings.Join(quoted, " "))
	if err != nil || strings.Join(got, "|") != strings.Join(args, "|") {
		t.Errorf("shellWords(%q) = %q, %v; want %q", strings.Join(quoted, " "), got, err, args)
	}
	if _, err := shellWords("run 'open"); err == nil {
		t.Error("an unclosed quote was accepted")
	}
}
