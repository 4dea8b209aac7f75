package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// interruptPlan is a sweep whose last trials are long (chang-roberts with
// every process initiating on a descending ring: N²/2 messages, 4.5·10⁶ at
// N = 3,000), so that an interrupt lands inside a simulated trial;
// longPlan's take minutes (2·10⁸ messages at N = 20,000).
var (
	interruptPlan = plan("3000")
	longPlan      = plan("20000")
)

func plan(large string) []string {
	return []string{"run", "--algo", "chang-roberts", "--ids", "descending", "--initiators", "all",
		"--nodes", "4,8," + large, "--trials", "3", "--parallel", "2", "--format", "csv"}
}

// startRun starts plan into dir and waits until its first rows are on
// disk.
func startRun(t *testing.T, bin, dir string, plan []string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(bin, append(append([]string{}, plan...), "--out", dir)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
		if bytes.Count(b, []byte("\n")) >= 1+6 { // header and the small trials
			return cmd, &stderr
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no rows after 30s; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExit waits for cmd, failing if it outlives limit (a hang: an
// interrupted simulated trial must stop at once, not run its 10⁸ events),
// and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v after the interrupt", limit)
		return -1
	}
}

// TestInterruptAndResume: Ctrl-C stops a simulated sweep inside a long
// trial, acknowledges it, exits 130 with every finished row kept, and
// --resume completes the run byte-identically to one never interrupted.
func TestInterruptAndResume(t *testing.T) {
	bin := buildElectbench(t)
	dir := t.TempDir()
	run, stderr := startRun(t, bin, dir, interruptPlan)
	if err := run.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, run, time.Minute); code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	for _, want := range []string{"Ctrl-C: stopping the run", "rerun with --resume"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	kept, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(kept, []byte("\n")); n < 7 || n >= 10 {
		t.Fatalf("%d lines kept, want the header, the 6 small trials and not all 3 large ones", n)
	}
	resume := exec.Command(bin, append(append(append([]string{}, interruptPlan...), "--out", dir), "--resume")...)
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	whole := t.TempDir()
	full := exec.Command(bin, append(append([]string{}, interruptPlan...), "--out", whole)...)
	if out, err := full.CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	want, _ := os.ReadFile(filepath.Join(whole, "results.csv"))
	if !bytes.Equal(got, want) {
		t.Fatalf("resumed results differ from an uninterrupted run's:\n%s\n---\n%s", got, want)
	}
}

// TestSecondInterruptQuits: a second Ctrl-C ends the run at once, and the
// first stops a trial of minutes (a hang check: a trial that did not look
// at its cancellation would hold the run for minutes).
func TestSecondInterruptQuits(t *testing.T) {
	bin := buildElectbench(t)
	run, stderr := startRun(t, bin, t.TempDir(), longPlan)
	run.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, run, 20*time.Second); code != exitInterrupted {
		t.Fatalf("one Ctrl-C: exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
	run, stderr = startRun(t, bin, t.TempDir(), longPlan)
	run.Process.Signal(syscall.SIGINT)
	time.Sleep(5 * time.Millisecond)
	run.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, run, 10*time.Second); code != exitInterrupted {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, stderr)
	}
}

// TestKillAndResume: a sweep of small trials killed outright (SIGKILL:
// no Close, rows queued and not flushed lost with the process, a last
// line possibly cut) keeps a prefix of whole rows that --resume completes
// byte-identically to a run never killed, results and summary.
func TestKillAndResume(t *testing.T) {
	bin := buildElectbench(t)
	const trials = 40_000
	plan := []string{"run", "--algo", "chang-roberts", "--nodes", "5", "--trials", strconv.Itoa(trials),
		"--latency", "uniform(1ms,5ms)", "--crash", "leader@leader-elected", "--parallel", "2", "--format", "csv"}
	dir := t.TempDir()
	run, stderr := startRun(t, bin, dir, plan)
	if err := run.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, run, time.Minute); code != -1 {
		t.Fatalf("killed: exit %d, want death by the signal; stderr:\n%s", code, stderr)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(kept, []byte("\n")); n >= 1+trials {
		t.Fatalf("the kill came after the last row (%d lines): make the sweep longer", n)
	} else {
		t.Logf("killed with %d lines in results.csv, the last one whole: %v", n, bytes.HasSuffix(kept, []byte("\n")))
	}
	resume := exec.Command(bin, append(append(append([]string{}, plan...), "--out", dir), "--resume")...)
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	whole := t.TempDir()
	full := exec.Command(bin, append(append([]string{}, plan...), "--out", whole)...)
	if out, err := full.CombinedOutput(); err != nil {
		t.Fatalf("never killed: %v\n%s", err, out)
	}
	for _, name := range []string{"results.csv", "summary.csv"} {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		want, _ := os.ReadFile(filepath.Join(whole, name))
		if len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes resumed after the kill, %d never killed, not the same bytes", name, len(got), len(want))
		}
	}
}
