package external_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/external"
	_ "github.com/electbench/electbench/nodes/ring" // chang-roberts, for theory and comparison
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

const T = time.Millisecond

// algorithm returns an external algorithm running this test binary in
// node mode (node_test.go).
func algorithm(t *testing.T, mode string, timeout time.Duration) *nodes.Algorithm {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a, err := external.Spec{
		Name: "go-" + mode, Command: []string{exe, "node-mode", mode}, Topology: nodes.RingUni,
		Theory: "chang-roberts", StepTimeout: timeout,
	}.Algorithm()
	if err != nil {
		t.Fatal(err)
	}
	return &a
}

func ascending(n int) []nodes.Rank {
	rs := make([]nodes.Rank, n)
	for i := range rs {
		rs[i] = nodes.RankOf(uint64(i + 1))
	}
	return rs
}

func run(t *testing.T, a *nodes.Algorithm, n int, initiators []int) (*trial.Record, error) {
	t.Helper()
	cfg := trial.DefaultConfig()
	cfg.Algorithm, cfg.Ranks, cfg.Initiators = a, nodes.RanksOf(ascending(n)), initiators
	return sim.Run(cfg)
}

// ALGORITHMS.md, chang-roberts: "One initiator: same figures as ring (3N−1
// worst, 2N best)"; the worst case is the successor of the would-be leader
// initiating, which on an ascending ring is position 0.
func TestChangRobertsFigures(t *testing.T) {
	a := algorithm(t, "cr", 0)
	builtin, _, _ := nodes.Lookup("chang-roberts")
	for _, n := range []int{3, 5, 17} {
		for _, c := range []struct {
			name      string
			initiator int
			msgs      int64
		}{{"worst", 0, int64(3*n - 1)}, {"best", n - 1, int64(2 * n)}} {
			rec, err := run(t, a, n, []int{c.initiator})
			if err != nil {
				t.Fatalf("N=%d %s: %v", n, c.name, err)
			}
			turn := (rec.LastElection - rec.FirstInitiation) / T
			if rec.Messages != c.msgs || int64(turn) != c.msgs || !rec.Quiescent {
				t.Fatalf("N=%d %s: %d messages, turnaround %dT, quiescent %v; want %d and %dT", n, c.name, rec.Messages, turn, rec.Quiescent, c.msgs, c.msgs)
			}
			for p, d := range rec.Decisions.All() {
				if d.Leader != nodes.RankOf(uint64(n)) || d.Count != 1 {
					t.Fatalf("N=%d %s: node %d decided %v %d times", n, c.name, p, d.Leader, d.Count)
				}
			}
			// The built-in agrees kind by kind.
			cfg := trial.DefaultConfig()
			cfg.Algorithm, cfg.Ranks, cfg.Initiators = builtin, nodes.RanksOf(ascending(n)), []int{c.initiator}
			want, err := sim.Run(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got, w := rec.MessagesByKind(), want.MessagesByKind(); !equal(got, w) {
				t.Fatalf("N=%d %s: kinds %v, built-in %v", n, c.name, got, w)
			}
			if rec.End != want.End {
				t.Fatalf("N=%d %s: ended at %v, built-in at %v", n, c.name, rec.End, want.End)
			}
		}
	}
}

func equal(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Bytes are the bodies' bytes as the node wrote them
// (NODE-PROTOCOL.md, "Output lines"); timers are counted by name.
func TestBytesAndTimers(t *testing.T) {
	a := algorithm(t, "timers", 0)
	var trace bytes.Buffer
	tr := trial.NewTrace(&trace)
	cfg := trial.DefaultConfig()
	cfg.Algorithm, cfg.Ranks, cfg.Initiators, cfg.Events = a, nodes.RanksOf(ascending(3)), []int{0}, tr
	rec, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.Flush()
	// A log line is a note in the trace, at its step's instant.
	if want := `{"t":2500000,"ev":"note","p":0,"text":"timer t-1"}`; !strings.Contains(trace.String(), want) {
		t.Errorf("trace lacks %s:\n%s", want, trace.String())
	}
	if got := rec.MessagesByKind(); len(got) != 1 || got["PING"] != 1 {
		t.Fatalf("kinds %v, want PING=1", got)
	}
	if rec.Bytes != int64(len(`{"type":"PING"}`)) {
		t.Fatalf("%d bytes, want %d", rec.Bytes, len(`{"type":"PING"}`))
	}
	if got := rec.TimeoutsByKind(); len(got) != 1 || got["t-1"] != 1 {
		t.Fatalf("timers %v, want t-1=1 (gone was cancelled)", got)
	}
	if d := rec.Decisions.Get(0); d.Count != 1 || d.At != 2500*time.Microsecond {
		t.Fatalf("node 0 decided %+v, want once at 2.5ms (its timer)", d)
	}
}

// NODE-PROTOCOL.md, "Mistakes a node can make": each gives the trial an
// error naming the node, the step and the offending line or exit status.
func TestMisbehaviour(t *testing.T) {
	for _, c := range []struct {
		mode string
		want []string
	}{
		{"garbage", []string{"go-garbage n0: step 3 (elect)", "not a JSON object", `"this is not json"`}},
		{"exit", []string{"go-exit n0: step 3 (elect)", "exited with status 3", "boom: cannot elect"}},
		{"hang", []string{"go-hang n0: step 3 (elect)", "did not end its step within the step timeout (1s)"}},
		{"badsrc", []string{"step 3 (elect)", `"src" is "n99", not the node's own name "n0"`}},
		{"baddest", []string{`"n77" is neither eb nor a peer`}},
		{"badtimer", []string{"set_timer needs \"ms\""}},
		{"badaction", []string{`unknown action "teleport"`}},
		{"longline", []string{"a line longer than 1048576 bytes"}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			start := time.Now()
			rec, err := run(t, algorithm(t, c.mode, time.Second), 3, []int{0})
			if err == nil || rec == nil {
				t.Fatalf("no error (record %v)", rec != nil)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(err.Error()) > 700 {
				t.Errorf("error of %d bytes: lines must be cut", len(err.Error()))
			}
			// The step timeout, plus a second to stop the programs.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// children lists the processes whose parent is this one (Linux: /proc).
func children(t *testing.T) []string {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Fatalf("listing /proc: %v (%d entries): this test counts a trial's child processes there (Linux)", err, len(stats))
	}
	me := strconv.Itoa(os.Getpid())
	var out []string
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ")".
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == me {
			out = append(out, s[:strings.IndexByte(s, ')')+1]+" "+fields[0])
		}
	}
	return out
}

// Every program is reaped when its trial ends, however it ended: no
// zombie, no orphan (NODE-PROTOCOL.md, "Mistakes").
func TestNothingOutlivesATrial(t *testing.T) {
	for _, mode := range []string{"cr", "hang", "exit", "garbage"} {
		if _, err := run(t, algorithm(t, mode, time.Second), 4, []int{0}); (err == nil) != (mode == "cr") {
			t.Fatalf("%s: error %v", mode, err)
		}
		if c := children(t); len(c) != 0 {
			t.Fatalf("%s: children left after the trial: %v", mode, c)
		}
	}
}

// BenchmarkSimChangRobertsGo runs the Go example node (examples/nodes/cr-go)
// in the simulator, one initiator, the worst case (3N-1 messages): events
// per second of a whole trial. The example declares reuse, so its programs
// start once for the benchmark and each trial pays their fresh init.
func BenchmarkSimChangRobertsGo(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "cr-go")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/nodes/cr-go").CombinedOutput(); err != nil {
		b.Fatalf("building the Go example: %v\n%s", err, out)
	}
	a, err := external.Spec{Name: "cr-go", Command: []string{bin}, Topology: nodes.RingUni}.Algorithm()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{64, 1024} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var events int64
			for b.Loop() {
				cfg := trial.DefaultConfig()
				cfg.Algorithm, cfg.Ranks, cfg.Initiators = &a, nodes.RanksOf(ascending(n)), []int{0}
				rec, err := sim.Run(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if rec.Messages != int64(3*n-1) {
					b.Fatalf("%d messages, want %d", rec.Messages, 3*n-1)
				}
				events += rec.Events + int64(n) // the heap's events and every node's start
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkTrialStartStop is the fixed cost of a trial of N programs that
// do not declare reuse: the Go no-op node spawned, initialised, started
// and stopped N times, with no election. Kept programs
// (BenchmarkSimChangRobertsGo) pay it once.
func BenchmarkTrialStartStop(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	a, err := external.Spec{Name: "noop", Command: []string{exe, "node-mode", "noop"}, Topology: nodes.RingUni}.Algorithm()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{64, 1024} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				cfg := trial.DefaultConfig()
				cfg.Algorithm, cfg.Ranks = &a, nodes.RanksOf(ascending(n))
				if _, err := sim.Run(cfg); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/program")
		})
	}
}

// A type listed as maintenance (by the scenario or init_ok) is counted by
// name but is not an election message (NODE-PROTOCOL.md, init_ok).
func TestMaintenanceTypes(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a, err := external.Spec{Name: "go-maint", Command: []string{exe, "node-mode", "timers"}, Topology: nodes.RingUni, Maintenance: []string{"PING"}}.Algorithm()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := run(t, &a, 3, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Messages != 0 || rec.MessagesByKind()["PING"] != 1 || rec.LastElection >= 0 {
		t.Fatalf("messages %d, kinds %v, last election %v: want PING=1 outside messages", rec.Messages, rec.MessagesByKind(), rec.LastElection)
	}
}
