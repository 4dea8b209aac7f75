package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/livetest"
)

// Issue 45, "What must hold": Ctrl-C stops a live run of each election
// library within 2 s, mid-trial (its node processes up, the library's
// goroutines and timers running), with the finished trials' rows on disk
// and no process of the run left: nodes, the store of k8s-lease, and the
// embedded Toxiproxy's proxies and ports, which live in electbench's own
// process and go with it.
func TestLibraryRunInterrupted(t *testing.T) {
	bin := buildElectbench(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"hashicorp-raft", []string{"--algo", "hashicorp-raft", "--runtime", "live", "--nodes", "5", "--crash", "leader@leader-elected+20T"}},
		{"k8s-lease", []string{"k8s-lease-candidate-crash"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mark := fmt.Sprintf("ELECTBENCH_TEST_MARK=%x", rand.Uint64())
			run := exec.Command(bin, append(append([]string{"run"}, tc.args...), "--trials", "4", "--format", "csv", "--out", dir)...)
			run.Env = append(os.Environ(), mark)
			var stderr bytes.Buffer
			run.Stderr = &stderr
			if err := run.Start(); err != nil {
				t.Fatal(err)
			}
			defer run.Process.Kill()
			awaitSecondTrial(t, dir, mark, &stderr)
			if err := run.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			interrupted := time.Now()
			code := waitExit(t, run, 10*time.Second)
			took := time.Since(interrupted)
			t.Logf("%s: Ctrl-C to exit %v", tc.name, took)
			if code != exitInterrupted || took > 2*time.Second {
				t.Errorf("exit %d after %v; want %d within 2 s; stderr:\n%s", code, took, exitInterrupted, stderr.String())
			}
			rows, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
			if n := bytes.Count(rows, []byte("\n")); n < 2 || n > 4 {
				t.Errorf("%d lines in results.csv, want the header and the 1 to 3 finished trials:\n%s", n, rows)
			}
			if left := livetest.Marked(mark); len(left) > 0 {
				t.Errorf("processes of the run remain: %v", left)
			}
		})
	}
}

// awaitSecondTrial waits until the first trial's row is on disk and the
// second trial's node processes (electbench node, marked) are up.
func awaitSecondTrial(t *testing.T, dir, mark string, stderr *bytes.Buffer) {
	t.Helper()
	// A trial's node processes are all up only until its crash, about a
	// second: a look at every process that takes longer (a loaded host)
	// can miss every trial's, which the message then shows.
	lines, nodes, look := 0, 0, time.Duration(0)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no second trial under way after 2 minutes (%d lines in results.csv, %d node processes at the last look, the longest look %v); stderr:\n%s", lines, nodes, look, stderr.String())
		}
		rows, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
		if lines = bytes.Count(rows, []byte("\n")); lines < 2 {
			continue
		}
		nodes = 0
		began := time.Now()
		marked := livetest.Marked(mark)
		look = max(look, time.Since(began))
		for _, p := range marked {
			if strings.Contains(p, " node ") {
				nodes++
			}
		}
		if nodes >= 5 {
			return
		}
	}
}
