package external_test

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// starve computes for cpu of its thread's CPU time on the CPU named by
// $EB_TEST_CPU at the lowest priority (nice 19), where hog computes at the
// normal one: the scheduler gives it about 1.5% of that CPU, so it spends
// most of its step waiting on the run queue, as on a host busy with other
// work. Affinity and niceness are per thread on Linux, hence the lock.
func starve(cpu time.Duration) {
	runtime.LockOSThread()
	pin()
	syscall.Setpriority(syscall.PRIO_PROCESS, 0, 19)
	for start := threadCPU(); threadCPU()-start < cpu; {
	}
}

// hog computes on the CPU named by $EB_TEST_CPU for a minute at most (the
// test kills it sooner).
func hog() int {
	runtime.LockOSThread()
	pin()
	for start := time.Now(); time.Since(start) < time.Minute; {
		for range 1 << 20 {
		}
	}
	return 0
}

// pin binds the calling thread to the CPU named by $EB_TEST_CPU.
func pin() {
	k, _ := strconv.Atoi(os.Getenv("EB_TEST_CPU"))
	var set unix.CPUSet
	set.Set(k)
	unix.SchedSetaffinity(0, &set)
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}
