package external_test

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// NODE-PROTOCOL.md, "Step timeout and start-up": a program starved of the
// CPU by a busy host is not failed. Its elect step needs 20 ms of CPU, but
// it runs at nice 19 on one CPU beside a program computing at the normal
// priority there, and takes seconds of wall time: charged the wall time
// less its wait on the run queue, it stays within its 300 ms step timeout
// (on a wall-clock timeout it failed), and elects as Chang-Roberts does.
func TestStarvedStepPasses(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	cpu := -1
	for k := range 1024 {
		if set.IsSet(k) {
			cpu = k
		}
	}
	t.Setenv("EB_TEST_CPU", strconv.Itoa(cpu))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := exec.Command(exe, "node-mode", "hog")
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.Process.Kill()
		h.Wait()
	})
	const n = 3
	start := time.Now()
	rec, err := run(t, algorithm(t, "starved", budgetTimeout), n, []int{0})
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("a program starved of the CPU failed, after %v: %v", wall, err)
	}
	if wall < 2*budgetTimeout {
		t.Fatalf("the trial took %v, less than two step timeouts: the program was not starved, and the test proves nothing", wall)
	}
	if rec.Messages != 3*n-1 || !rec.Quiescent {
		t.Fatalf("%d messages, quiescent %v; want %d (ALGORITHMS.md, chang-roberts, worst case)", rec.Messages, rec.Quiescent, 3*n-1)
	}
	t.Logf("the starved trial took %v of wall time", wall)
}
