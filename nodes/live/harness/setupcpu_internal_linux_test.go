package harness

import (
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nodesCPU counts a process's threads' CPU, which a busy loop moves
// forward, and setupCPU names each phase's share between two marks.
func TestSetupCPUCountsProcesses(t *testing.T) {
	self := []int{os.Getpid()}
	before, ok := nodesCPU(self)
	if !ok {
		t.Fatal("nodesCPU does not know on Linux")
	}
	var cpu setupCPU
	cpu.mark(nil)
	x := uint64(1)
	for i := 0; i < 50_000_000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	cpu.mark(self)
	after, _ := nodesCPU(self)
	if x == 0 || after <= before {
		t.Fatalf("CPU time of this process %v then %v after a busy loop", before, after)
	}
	for _, pid := range []int{-1, 0, 1 << 30} {
		if n, _ := nodesCPU([]int{pid}); n != 0 {
			t.Errorf("pid %d, not a process, counted %v", pid, n)
		}
	}
	// The clock is the process's own CPU clock: read for this process it
	// lies between two readings of CLOCK_PROCESS_CPUTIME_ID.
	var lo, hi unix.Timespec
	unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &lo)
	mine, _ := nodesCPU(self)
	unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &hi)
	if mine < time.Duration(lo.Nano()) || mine > time.Duration(hi.Nano()) {
		t.Errorf("this process's CPU clock read %v, outside %v..%v", mine, time.Duration(lo.Nano()), time.Duration(hi.Nano()))
	}
	got := cpu.String("busy", "never marked")
	if !strings.HasPrefix(got, "busy ") || strings.Contains(got, "never marked") || strings.Contains(got, "busy 0.00 + 0.00 s") {
		t.Errorf("setupCPU.String: %q", got)
	}
}
