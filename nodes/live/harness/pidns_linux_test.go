package harness_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness"
)

// Two runs in different PID namespaces sharing one Toxiproxy and TMPDIR
// both complete correctly (#39 item 6): a run in another namespace (a
// container) sees none of this one's pids, and took this run's proxies
// and temporary directory for a dead run's, deleting them under it, as it
// started. Run A runs trials; run B starts in a new PID namespace (where it
// is pid 1) and cleans up as every run does; both then run five more
// trials each and stop on SIGINT with exit 130, A's directory intact.
func TestRunsInTwoPIDNamespaces(t *testing.T) {
	url, _ := externalToxiproxy(t)
	tmp := t.TempDir()
	a := startHarnessIn(t, url, nil, "TMPDIR="+tmp)
	defer a.cmd.Process.Kill()
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
	if os.Geteuid() != 0 {
		// Without root, a user namespace of our own lets us make one.
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
	}
	b := startHarnessIn(t, url, attr, "TMPDIR="+tmp)
	defer b.cmd.Process.Kill()
	if !strings.HasPrefix(b.prefix, "eb1-") {
		t.Fatalf("run B's proxies are %s…: not pid 1 of a PID namespace of its own", b.prefix)
	}
	for _, h := range []harnessRun{a, b} {
		if !moreTrials(h, 5, time.Minute) {
			t.Fatalf("run %s… stopped before five more trials: %s", h.prefix, h.stderr.String())
		}
	}
	if _, err := os.Stat(a.dir); err != nil {
		t.Errorf("run A's directory: %v", err)
	}
	for _, h := range []harnessRun{a, b} {
		h.cmd.Process.Signal(syscall.SIGINT)
		h.cmd.Wait()
		if code := h.cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("run %s…: exit %d, want 130: %s", h.prefix, code, h.stderr.String())
		}
	}
}

// moreTrials reads the harness's output until it has started k more
// trials, within d; false if it stopped before.
func moreTrials(h harnessRun, k int, d time.Duration) bool {
	done := make(chan bool, 1)
	go func() {
		for n := 0; n < k; {
			if !h.out.Scan() {
				done <- false
				return
			}
			if strings.HasPrefix(h.out.Text(), "running ") {
				n++
			}
		}
		done <- true
	}()
	select {
	case ok := <-done:
		return ok
	case <-time.After(d):
		return false
	}
}

// A trial directory is removed only when its owner is provably dead: a
// pid of this namespace and boot no longer running with its start time.
// One whose owner may live in another PID namespace, or that names no
// token (an older run's), is kept.
func TestRemoveDeadDirsNeedsProof(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(gone.Process.Pid)
	mine := owner.Token()
	ns, rest, _ := strings.Cut(strings.TrimPrefix(mine, "n"), "b")
	dirs := map[string]bool{ // owner.pid, owner.token ("" for none) → removed
		pid + "|" + mine:                       true,
		pid + "|n" + ns + "1b" + rest:          false, // another PID namespace
		pid + "|":                              false, // no token
		strconv.Itoa(os.Getpid()) + "|" + mine: false, // this process
	}
	paths := map[string]string{}
	for spec := range dirs {
		d, err := os.MkdirTemp(tmp, harness.TempPattern)
		if err != nil {
			t.Fatal(err)
		}
		p, tok, _ := strings.Cut(spec, "|")
		os.WriteFile(filepath.Join(d, "owner.pid"), []byte(p+"\n"), 0o600)
		if tok != "" {
			os.WriteFile(filepath.Join(d, "owner.token"), []byte(tok+"\n"), 0o600)
		}
		paths[spec] = d
	}
	if _, err := harness.RemoveDeadDirs(); err != nil {
		t.Fatal(err)
	}
	for spec, want := range dirs {
		_, err := os.Stat(paths[spec])
		if removed := errors.Is(err, fs.ErrNotExist); removed != want {
			t.Errorf("owner %q: removed %v, want %v", spec, removed, want)
		}
	}
}
