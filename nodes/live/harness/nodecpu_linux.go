package harness

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// nodesCPU is the CPU time the processes pids have used so far, summed
// over their threads from /proc/PID/task/*/schedstat (nanoseconds: the
// clock ticks of /proc/PID/stat would round each of 64 processes down by
// up to 10 ms). A process gone, or a thread that ended, is not counted.
func nodesCPU(pids []int) (time.Duration, bool) {
	var sum time.Duration
	for _, pid := range pids {
		stats, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
		for _, s := range stats {
			b, err := os.ReadFile(s)
			if err != nil {
				continue
			}
			f := strings.Fields(string(b))
			if len(f) == 0 {
				continue
			}
			if ns, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				sum += time.Duration(ns)
			}
		}
	}
	return sum, true
}
