package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/electbench/electbench/nodes/trial"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"electbench": func() { os.Exit(Main()) }})
}

// TestScripts runs the end-to-end scripts in testdata/script. Golden output
// in the scripts is rewritten with UPDATE_SCRIPTS=1.
func TestScripts(t *testing.T) {
	// The example built for the scripts goes with them: a test run leaves
	// nothing in TMPDIR (it left a 3 MB directory a run).
	t.Cleanup(func() {
		if crGo.path != "" {
			os.RemoveAll(filepath.Dir(crGo.path))
		}
	})
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
		Cmds:          map[string]func(*testscript.TestScript, bool, []string){"exits": cmdExits, "refused": cmdRefused, "replace": cmdReplace, "replays": cmdReplays, "replayline": cmdReplayLine, "liverow": cmdLiveRow},
		Setup:         setupExamples,
	})
}

var crGo struct {
	once sync.Once
	path string
	err  error
}

// setupExamples points scripts at the example node programs of
// examples/nodes ($EXAMPLES), with the Go one built once ($CRGO), and at
// the hostile ones of nodes/external/testdata/hostile ($HOSTILE), and at
// docs/ ($DOCS), whose recipes scripts run.
func setupExamples(env *testscript.Env) error {
	dir, err := filepath.Abs("../../examples/nodes")
	if err != nil {
		return err
	}
	hostile, err := filepath.Abs("../../nodes/external/testdata/hostile")
	if err != nil {
		return err
	}
	env.Setenv("HOSTILE", hostile)
	docs, err := filepath.Abs("../../docs")
	if err != nil {
		return err
	}
	env.Setenv("DOCS", docs)
	crGo.once.Do(func() {
		bin, err := os.MkdirTemp("", "electbench-cr-go")
		if err != nil {
			crGo.err = err
			return
		}
		crGo.path = filepath.Join(bin, "cr-go")
		if out, err := exec.Command("go", "build", "-o", crGo.path, "../../examples/nodes/cr-go").CombinedOutput(); err != nil {
			crGo.err = fmt.Errorf("building examples/nodes/cr-go: %v\n%s", err, out)
		}
	})
	if crGo.err != nil {
		return crGo.err
	}
	env.Setenv("EXAMPLES", dir)
	env.Setenv("CRGO", crGo.path)
	return nil
}

// cmdExits runs a program and checks its exact exit code: exits 2 electbench run --nodes 1
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// cmdRefused runs electbench ARGS... as bad input must be met: exit 2, one
// line on standard error, "electbench: " and the reason, nothing on
// standard output, and nothing new in the work directory (no results, no
// output directory): refused ARGS...
func cmdRefused(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: refused ARGS...")
	}
	before := workEntries(ts)
	cmdExits(ts, false, append([]string{"2", "electbench"}, args...))
	stderr, stdout := ts.ReadFile("stderr"), ts.ReadFile("stdout")
	if stdout != "" {
		ts.Fatalf("refused input wrote to standard output: %q", stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "electbench: ") {
		ts.Fatalf("refused input: want one line \"electbench: …\" on standard error, got %q", stderr)
	}
	if after := workEntries(ts); !slices.Equal(before, after) {
		ts.Fatalf("refused input changed the work directory: %v before, %v after", before, after)
	}
}

// cmdLiveRow is grep PATTERN FILE for the one row of a live run's
// results.csv, except that a row whose every attempt the host took
// outside the algorithm's model (reruns at trial.MaxReruns, overruns
// above 0: a loaded host held a bully message past D, and a lower process
// rightly declared itself) measures the host, not the algorithm: the
// script then says so instead of failing (beside busy loops at load 60,
// bully at T = 20 ms kept an attempt with 9 and 17 messages past D, and
// wrong leaders). [!] liverow PATTERN FILE
func cmdLiveRow(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: liverow PATTERN FILE")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	ts.Check(err)
	data := ts.ReadFile(args[1])
	matched := re.MatchString(data)
	held := !matched && overranRow(ts, data, args[1])
	switch {
	case neg && (matched || held):
		ts.Fatalf("%s: its row matches %q, or its trial was outside its model in every attempt", args[1], args[0])
	case neg:
	case held:
		ts.Logf("the host overran: every attempt of the trial held messages past D; the row is the host's, not matched")
	case !matched:
		ts.Fatalf("no match for %q found in %s", args[0], args[1])
	}
}

// overranRow reports whether data, a results.csv of one row, is of a
// trial kept after trial.MaxReruns attempts outside its model.
func overranRow(ts *testscript.TestScript, data, name string) bool {
	rows, err := csv.NewReader(strings.NewReader(data)).ReadAll()
	ts.Check(err)
	if len(rows) != 2 {
		ts.Fatalf("%s holds %d rows, want one", name, len(rows)-1)
	}
	overruns, reruns := slices.Index(rows[0], "overruns"), slices.Index(rows[0], "reruns")
	if overruns < 0 || reruns < 0 {
		ts.Fatalf("%s has no overruns and reruns columns", name)
	}
	row := rows[1]
	return row[reruns] == strconv.Itoa(trial.MaxReruns) && row[overruns] != "" && row[overruns] != "0"
}

// workEntries names what the script's work directory holds.
func workEntries(ts *testscript.TestScript) []string {
	es, err := os.ReadDir(ts.Getenv("WORK"))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// cmdReplace edits a file of the script's work directory, replacing the one
// line OLD with NEW, so that a script can change one expectation of a
// built-in scenario it wrote out: replace FILE OLD NEW
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	text := ts.ReadFile(args[0])
	if strings.Count(text, args[1]+"\n") != 1 {
		ts.Fatalf("replace: %s has not exactly one line %q", args[0], args[1])
	}
	text = strings.Replace(text, args[1]+"\n", args[2]+"\n", 1)
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(text), 0o644); err != nil {
		ts.Fatalf("replace: %v", err)
	}
}
