package harness_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/netcut"
	"github.com/electbench/electbench/nodes/live/harness/system"
)

// The nftables table of a run killed before it could delete it (its link
// cuts, netcut) is removed by the next clean-up, once its owner is
// provably gone; a live run's table is kept, and so is one whose owner ran
// in another PID namespace (its pid proves nothing here: a run in a
// container sharing this network namespace deleted running runs' tables).
func TestCleanRemovesDeadRunsTables(t *testing.T) {
	untilCleaned(t, func() bool { return cleanDeadRunsTables(t) })
}

// cleanDeadRunsTables is an attempt of TestCleanRemovesDeadRunsTables:
// false when the dead run's table was gone before harness.Clean removed
// it (untilCleaned).
func cleanDeadRunsTables(t *testing.T) bool {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	me := owner.Token()
	ns, _, _ := strings.Cut(me, "b")
	_, boot, _ := strings.Cut(me, "b")
	boot, _, _ = strings.Cut(boot, "s")
	dead, err := netcut.Open(gone.Process.Pid, ns+"b"+boot+"s1")
	if err != nil {
		t.Fatalf("netcut needs root and nf_tables (CI runs as root): %v", err)
	}
	elsewhere, err := netcut.Open(gone.Process.Pid, "n1b"+boot+"s1")
	if err != nil {
		t.Fatal(err)
	}
	defer elsewhere.Close()
	mine, err := netcut.Open(os.Getpid(), me)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	c, err := harness.Clean(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(c.Tables, dead.Name()) {
		// Leftovers lists the tables named after the pid, which the
		// other namespace's table is too.
		if left, err := system.Leftovers(gone.Process.Pid, nil); err == nil && !slices.Contains(left, "nftables table "+dead.Name()) {
			t.Logf("clean removed tables %v, not %s, which is gone", c.Tables, dead.Name())
			return false
		}
		dead.Close()
		t.Errorf("clean removed tables %v; want %s among them", c.Tables, dead.Name())
	}
	for _, kept := range []*netcut.Table{mine, elsewhere} {
		if slices.Contains(c.Tables, kept.Name()) {
			t.Errorf("clean removed %s, the table of a run that may live", kept.Name())
		}
	}
	return true
}

// systemHolder makes this test binary a run holding a cluster of the
// server it names (holdSystem), for TestKilledSystemRun to kill.
const systemHolder = "ELECTBENCH_TEST_SYSTEM_HOLDER"

// The holder is decided before TestMain, which would start the tests: the
// variable is set only on the process TestKilledSystemRun starts.
func init() {
	if name := os.Getenv(systemHolder); name != "" {
		os.Exit(holdSystem(system.ByName(name)))
	}
}

// holdSystem starts three members of srv in a trial directory of its
// own, prints the directory and the members' uids once they agree on a
// leader, and waits to be killed.
func holdSystem(srv *system.Server) int {
	dir, err := os.MkdirTemp("", harness.TempPattern)
	if err == nil {
		err = harness.ClaimDir(dir)
	}
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := system.Start(ctx, srv, system.Spec{N: 3}, dir)
	if err == nil {
		err = system.WaitFormed(ctx, c, func(system.Observation) {})
	}
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	uids := ""
	for _, m := range c.Spec().Members {
		uids += fmt.Sprintf(" %d", m.UID)
	}
	fmt.Println("formed", dir, uids)
	go func() {
		for range c.Observations() { // keep the members' logs flowing
		}
	}()
	select {}
}

// Issue 41, "What must hold": electbench killed with
// SIGKILL while running etcd members or ZooKeeper servers leaves none
// running (the kernel's parent-death signal kills them; ZooKeeper's start
// script execs its JVM, so the JVM is the member's process), and the next
// clean-up removes its trial directory (the members' data) and its
// nftables table.
func TestKilledSystemRun(t *testing.T) {
	for _, srv := range []*system.Server{system.Etcd, system.ZooKeeper} {
		t.Run(srv.Name, func(t *testing.T) { killSystemRun(t, srv) })
	}
}

// cleanAttempts bounds the attempts of a test of a killed run's clean-up
// whose leftovers a concurrent run removed before the test's own
// harness.Clean could: every run of electbench (a runtime of another test
// binary, `electbench clean`) removes a provably dead run's leftovers, so
// on a host where other runs start one may win the race, and the test's
// clean-up then has nothing to be checked on. A test pre-empted in every
// attempt fails.
const cleanAttempts = 3

// untilCleaned runs attempt, which reports whether its clean-up was the
// one checked, until one was, at most cleanAttempts times, logging each
// pre-empted attempt.
func untilCleaned(t *testing.T, attempt func() bool) {
	t.Helper()
	for i := 1; ; i++ {
		if attempt() {
			return
		}
		if i == cleanAttempts {
			t.Fatalf("in each of %d attempts the killed run's leftovers were gone before this test's clean-up: it went unchecked", cleanAttempts)
		}
		t.Logf("attempt %d of %d: the killed run's leftovers were gone before this test's clean-up (a concurrent run's removed them): run again", i, cleanAttempts)
	}
}

// killSystemRun kills a run holding a cluster of srv and checks what
// harness.Clean removes of it. The run's temporary directory is in a
// TMPDIR of the test's own, where no other run's clean-up looks: every
// run cleans up as it starts, and on a host where others start, theirs
// removed the killed run's directory before this test's clean-up could
// (6 attempts of 6 beside cmd/electbench's scripts at load 30-90). Its
// nftables table is the host's, which another run may remove first:
// TestCleanRemovesDeadRunsTables pins that Clean removes one.
func killSystemRun(t *testing.T, srv *system.Server) {
	tmp, err := os.MkdirTemp("", "killed-system-run-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil { // members run as uids of their own
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), systemHolder+"="+srv.Name, "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if len(f) < 3 || f[0] != "formed" {
		t.Fatalf("the holder did not form its cluster: %q", line)
	}
	dir := f[1]
	var uids []uint32
	for _, u := range f[2:] {
		uid, err := strconv.ParseUint(u, 10, 32)
		if err != nil {
			t.Fatalf("the holder's uid %q: %v", u, err)
		}
		uids = append(uids, uint32(uid))
	}
	table := netcut.OwnedBy(cmd.Process.Pid)
	cmd.Process.Kill()
	cmd.Wait()
	killed := time.Now()
	for {
		left, err := system.Processes(uids)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 {
			if d := time.Since(killed); d > 2*time.Second {
				t.Logf("the killed run's members took %v to die: the host ran them late", d.Round(time.Millisecond))
			}
			break
		}
		if time.Since(killed) > deathBound {
			t.Errorf("members of the killed run remain after %v: %v", deathBound, left)
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the killed run left no directory (%v): the check below would prove nothing", err)
	}
	t.Setenv("TMPDIR", tmp)
	c, err := harness.Clean(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if left, err := system.Leftovers(cmd.Process.Pid, uids); err != nil || len(left) > 0 {
		t.Errorf("after clean the killed run left behind %v (%v)", left, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) || !slices.Contains(c.Dirs, dir) {
		t.Errorf("clean removed directories %v; want the killed run's %s (now: %v)", c.Dirs, dir, err)
	}
	if !slices.ContainsFunc(c.Tables, func(name string) bool { return strings.HasPrefix(name, table) }) {
		t.Logf("clean removed tables %v, not the killed run's %s*, which another run's clean-up removed first", c.Tables, table)
	}
}
