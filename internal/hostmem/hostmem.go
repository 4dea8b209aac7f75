// Package hostmem tells how much memory this process may use: the
// machine's physical memory, or the cgroup's limit when the process runs in
// a container that sets a lower one, or its address-space limit (ulimit -v)
// when that is lower still.
package hostmem

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Total returns the memory available to this process in bytes, and false
// when the host does not say (not Linux, or /proc unreadable).
func Total() (int64, bool) {
	total, ok := memTotal("/proc/meminfo")
	if !ok {
		return 0, false
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if lim, ok := cgroupLimit(p); ok && lim < total {
			total = lim
		}
	}
	if lim, ok := addressSpaceLimit(); ok && lim < total {
		total = lim
	}
	return total, true
}

// memTotal reads MemTotal from a meminfo file.
func memTotal(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

// cgroupLimit reads a cgroup memory limit file: a number of bytes, or
// "max" (none).
func cgroupLimit(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return v, true
}
