package harness

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The harness's files depend downward (issue 36): the Runtime (cluster.go)
// runs trials, each trial's coordinator (run.go) drives parts that own
// their own state, and the parts — processes, links, faults, event log,
// clock, settling — reach nothing above them but through the narrow
// interfaces they declare (faultHost). A part that names the coordinator
// or the Runtime calls back up.
func TestPartsDependDownward(t *testing.T) {
	above := map[string][]string{ // a name, and the files that may use it
		"Runtime":   {"cluster.go"},
		"liveTrial": {"cluster.go", "run.go"},
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if may, ok := above[id.Name]; ok && !slices.Contains(may, name) {
					t.Errorf("%s names %s: only %v may", name, id.Name, may)
				}
			}
			return true
		})
	}
	if checked < 10 {
		t.Fatalf("checked %d files: the package's files were not found", checked)
	}
}

// The schedule runs an action at its time on the trial's goroutine:
// before the run's clock starts it holds it for the start, once started
// it runs what is due after the handler running now, in order, and what is
// later when its timer fires. Each is pending until done.
func TestScheduleAt(t *testing.T) {
	s := newSchedule()
	var ran []string
	s.at(0, func() { ran = append(ran, "early") })
	if s.pending != 0 || len(s.early) != 1 {
		t.Fatalf("before the start: %d pending, %d held, want 0 and 1", s.pending, len(s.early))
	}
	s.begin(0)
	s.at(0, func() { ran = append(ran, "due 1") })
	s.at(0, func() {
		ran = append(ran, "due 2")
		s.at(0, func() { ran = append(ran, "made due") })
	})
	s.armEarly()
	s.at(time.Hour, func() { ran = append(ran, "later") })
	if s.pending != 4 {
		t.Fatalf("%d pending, want 4: two due, one held for the start, one later", s.pending)
	}
	s.runDue()
	if want := []string{"due 1", "due 2", "made due"}; !slices.Equal(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
	(<-s.actions)() // the early one, its time come
	s.pending--
	if want := []string{"due 1", "due 2", "made due", "early"}; !slices.Equal(ran, want) || s.pending != 1 {
		t.Fatalf("ran %v with %d pending, want %v and 1 (the later one)", ran, s.pending, want)
	}
	s.stop()
}

// The settling counts kept event by event agree with a recount from
// scratch, whatever the order of sends, deliveries, timers, commands and
// processes going (settle.go keeps them so that checking costs nothing).
func TestSettlingCounts(t *testing.T) {
	const n = 4
	ps := &procs{byPos: []*proc{{}, {}, {}, {}}}
	ps.positions()
	ls := newLinks(n, nil, func(string, ...any) {})
	s := &settling{procs: ps, links: ls}
	s.init(n)
	s.recount()
	src := rand.New(rand.NewPCG(1, 2))
	for step := range 2000 {
		k, p := src.IntN(n*n), src.IntN(n)
		switch src.IntN(6) {
		case 0:
			s.count(k, func() { ls.sent[k]++ })
		case 1:
			if ls.recv[k] < ls.sent[k] {
				s.count(k, func() { ls.recv[k]++ })
			}
		case 2:
			s.busy(p, func() { s.armed[p] = src.IntN(3) })
		case 3:
			s.busy(p, func() { s.expect[p] = max(s.expect[p]+src.IntN(3)-1, 0) })
		case 4:
			ps.gone[p] = !ps.gone[p]
			s.recount()
		case 5:
			ls.lossy[k] = src.IntN(8) == 0
			s.recount()
		}
		links, busy := s.unsettledLinks, s.busyProcs
		s.recount()
		if links != s.unsettledLinks || busy != s.busyProcs {
			t.Fatalf("step %d: kept %d links and %d processes unsettled, a recount %d and %d", step, links, busy, s.unsettledLinks, s.busyProcs)
		}
	}
}
