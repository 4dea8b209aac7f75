package harness

import (
	"os"
	"strings"
	"testing"
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
	if n, _ := nodesCPU([]int{-1}); n != 0 {
		t.Errorf("a process that is not there counted %v", n)
	}
	got := cpu.String("busy", "never marked")
	if !strings.HasPrefix(got, "busy ") || strings.Contains(got, "never marked") || strings.Contains(got, "busy 0.00 + 0.00 s") {
		t.Errorf("setupCPU.String: %q", got)
	}
}
