package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/nftables"
)

// Ctrl-C of a run of a server algorithm (issue 41) leaves nothing behind:
// no member process, no trial directory, no nftables table of the run.
// The run is interrupted while its members are up; it exits 130.
func TestServerRunInterrupted(t *testing.T) {
	bin := buildElectbench(t)
	run := exec.Command(bin, "run", "--algo", "etcd-server", "--runtime", "live", "--nodes", "3", "--trials", "1",
		"--param", "election-timeout=500ms,heartbeat-interval=50ms", "--deadline", "60s", "--format", "csv", "--out", t.TempDir())
	// The members' uids must reach the trial's directory (go test's
	// temporary directories are 0700).
	run.Env = append(os.Environ(), "TMPDIR=/tmp")
	var stderr strings.Builder
	run.Stderr = &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	pid := run.Process.Pid
	// The members run as 1,000,000 + 64 × pid + K (system.runBlock).
	uids := []string{}
	for k := range 3 {
		uids = append(uids, strconv.Itoa(1_000_000+64*pid+k))
	}
	for deadline := time.Now().Add(30 * time.Second); len(processesOf(t, uids)) < 3; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			run.Process.Kill()
			run.Wait()
			t.Fatalf("the 3 members did not start within 30 s; stderr:\n%s", stderr.String())
		}
	}
	if err := run.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, run, 30*time.Second); code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr.String())
	}
	if left := processesOf(t, uids); len(left) > 0 {
		t.Errorf("member processes remain: %v", left)
	}
	dirs, _ := filepath.Glob("/tmp/electbench-live-*/owner.pid")
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			t.Errorf("the run's trial directory remains: %s", filepath.Dir(d))
		}
	}
	conn, err := nftables.New()
	if err != nil {
		t.Fatal(err)
	}
	tables, err := conn.ListTables()
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == "electbench_"+strconv.Itoa(pid) {
			t.Errorf("the run's nftables table %s remains", tb.Name)
		}
	}
}

// processesOf lists the pids running as any of uids.
func processesOf(t *testing.T, uids []string) []string {
	t.Helper()
	status, err := filepath.Glob("/proc/[0-9]*/status")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, s := range status {
		b, err := os.ReadFile(s)
		if err != nil {
			continue // it exited
		}
		for l := range strings.Lines(string(b)) {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" && slices.Contains(uids, f[1]) {
				pids = append(pids, filepath.Base(filepath.Dir(s)))
			}
		}
	}
	return pids
}
