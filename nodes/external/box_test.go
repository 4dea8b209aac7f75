package external_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/external"
)

// hostile returns an external algorithm running one of the programs of
// testdata/hostile with args.
func hostile(t *testing.T, prog string, timeout time.Duration, args ...string) *nodes.Algorithm {
	t.Helper()
	if _, err := os.Stat("/usr/bin/env"); err != nil {
		t.Fatalf("the hostile programs run under python3 through /usr/bin/env: %v", err)
	}
	path, err := filepath.Abs(filepath.Join("testdata", "hostile", prog))
	if err != nil {
		t.Fatal(err)
	}
	a, err := external.Spec{
		Name: strings.TrimSuffix(prog, ".py"), Command: append([]string{"python3", path}, args...),
		Topology: nodes.RingUni, StepTimeout: timeout,
	}.Algorithm()
	if err != nil {
		t.Fatal(err)
	}
	return &a
}

// alive reports whether process pid exists and is not a zombie (Linux).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// issue 39, item 5: a program's child, in its process group or in a
// session of its own, holding the program's standard error, neither
// delays the end of the trial nor outlives it.
func TestChildrenDieWithTheTrial(t *testing.T) {
	for _, mode := range []string{"setsid", "group"} {
		t.Run(mode, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "child")
			a := hostile(t, "forker.py", 5*time.Second, mode, pidfile)
			done := make(chan error, 1)
			start := time.Now()
			go func() {
				_, err := run(t, a, 3, []int{0})
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("trial: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("the trial has not ended after %v: its end waits for the child", time.Since(start))
			}
			for i := range 3 {
				b, err := os.ReadFile(pidfile + ".n" + strconv.Itoa(i))
				if err != nil {
					t.Fatalf("node n%d wrote no child pid: %v", i, err)
				}
				pid, err := strconv.Atoi(string(b))
				if err != nil {
					t.Fatal(err)
				}
				if alive(pid) {
					t.Errorf("n%d's child, pid %d, survived the trial", i, pid)
				}
			}
		})
	}
}

// issue 39, item 10: a program that writes messages without ending its
// step fails the trial with a flood error naming the node and the step,
// as soon as its output passes the bound, not at the step timeout with
// every message held meanwhile.
func TestFloodIsAStepError(t *testing.T) {
	_, err := run(t, hostile(t, "flood.py", 20*time.Second, "stdout"), 3, []int{0})
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"flood n", "step 2 (start)", "flooded its step: more than 65536 lines in one step"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}

// counter counts the bytes written to it and keeps the last write.
type counter struct {
	mu   sync.Mutex
	n    int
	last string
}

func (c *counter) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += len(b)
	c.last = string(b)
	return len(b), nil
}

// issue 39, item 10: a program writing its standard error without end adds
// at most MaxLogBytes to the run's log, and says where its log stops.
func TestStderrFloodIsCapped(t *testing.T) {
	var log counter
	external.SetLog(&log)
	defer external.SetLog(nil)
	_, err := run(t, hostile(t, "flood.py", 2*time.Second, "stderr"), 3, []int{0})
	if err == nil || !strings.Contains(err.Error(), "did not end its step within the step timeout") {
		t.Fatalf("error %v, want a step timeout", err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if log.n > external.MaxLogBytes+64<<10 {
		t.Errorf("%d bytes logged, more than the bound of %d", log.n, external.MaxLogBytes)
	}
	if !strings.Contains(log.last, "the rest is not logged") {
		t.Errorf("the log ends %q, not with the notice that it stops", log.last)
	}
}

// issue 39, item 5: Ctrl-C (Interrupt) ends a step in progress at once,
// not at its step timeout: a program stuck in a step does not hold the run.
func TestInterruptEndsAStep(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "stalled")
	a := hostile(t, "stall.py", time.Minute, marker)
	done := make(chan error, 1)
	go func() {
		_, err := run(t, a, 3, []int{0})
		done <- err
	}()
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the trial ended before its program stalled: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	external.Interrupt()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "step 2 (start)") {
			t.Fatalf("error %v, want the start step's", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the trial still runs 20 s after Interrupt, with a step timeout of a minute")
	}
}
