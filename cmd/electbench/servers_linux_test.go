package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/system"
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
	var uids []uint32
	for k := range 3 {
		uids = append(uids, uint32(1_000_000+64*pid+k))
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if up, err := system.Processes(uids); err != nil || len(up) >= 3 {
			break // an unreadable /proc fails the check of what is left below
		}
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
	left, err := system.Leftovers(pid, uids)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("the run left behind: %v", left)
	}
	dirs, _ := filepath.Glob("/tmp/electbench-live-*/owner.pid")
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(pid) {
			t.Errorf("the run's trial directory remains: %s", filepath.Dir(d))
		}
	}
}
