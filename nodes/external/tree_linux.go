package external

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// strays lists the processes, other than the harness, that descend from
// root or hold one of the pipes (by inode) on any descriptor, from one
// pass over /proc. A child that left the program's process group with
// setsid() is out of reach of the group's kill; while the program lives it
// is found as a descendant, once the program has died (the child is then
// reparented) by the pipe it still holds. A process that left the group
// and closed every pipe escapes; a cgroup would hold it (NODE-PROTOCOL.md).
func strays(root int, pipes []uint64) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	self := os.Getpid()
	parent := map[int]int{}
	var out []int
	held := map[string]bool{}
	for _, ino := range pipes {
		held["pipe:["+strconv.FormatUint(ino, 10)+"]"] = true
	}
	for _, st := range stats {
		dir := filepath.Dir(st)
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || pid == self {
			continue
		}
		if f := stat(pid); len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
		if holds(dir, held) {
			out = append(out, pid)
		}
	}
	for pid := range parent {
		for p, hops := parent[pid], 0; p > 1 && hops < 64; p, hops = parent[p], hops+1 {
			if p == root {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// holds reports whether the process at dir (/proc/PID) has a descriptor on
// one of the pipes named in held ("pipe:[INODE]").
func holds(dir string, held map[string]bool) bool {
	if len(held) == 0 {
		return false
	}
	fds, err := os.ReadDir(filepath.Join(dir, "fd"))
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(dir, "fd", fd.Name())); err == nil && held[l] {
			return true
		}
	}
	return false
}

// inode is the inode of an open file (a pipe end), 0 if unknown. It goes
// through SyscallConn, not Fd, which would make the pipe blocking and
// disarm its deadlines.
func inode(f *os.File) uint64 {
	if f == nil {
		return 0
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var st syscall.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return 0
	}
	return st.Ino
}

// gone reports whether process pid has ended: absent, or a zombie that
// only its new parent can reap.
func gone(pid int) bool {
	f := stat(pid)
	return len(f) == 0 || f[0] == "Z"
}

// group lists the processes of process group pgid, zombies left out.
func group(pgid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, st := range stats {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		if err != nil {
			continue
		}
		if f := stat(pid); len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// stat returns the fields of /proc/PID/stat after the command's name:
// state, ppid, pgrp, ...; nil if the process is gone.
func stat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b) // pid (comm) state ...: comm may hold spaces
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// groupUsage returns the CPU time (user and system) of process group pgid
// and of the children its processes have reaped, and whether one of them
// is runnable or in an uninterruptible wait (running or waiting for the
// CPU or the disk, not blocked by choice).
func groupUsage(pgid int) (cpu time.Duration, busy, ok bool) { return usage(group(pgid)) }

// ownUsage is groupUsage of process pid alone: one file read, where the
// group takes a pass over /proc.
func ownUsage(pid int) (cpu time.Duration, busy, ok bool) { return usage([]int{pid}) }

func usage(pids []int) (cpu time.Duration, busy, ok bool) {
	var ticks int64
	for _, pid := range pids {
		f := stat(pid)
		if len(f) < 15 {
			continue
		}
		ok = true
		busy = busy || f[0] == "R" || f[0] == "D"
		for _, s := range f[11:15] { // utime, stime, cutime, cstime
			v, _ := strconv.ParseInt(s, 10, 64)
			ticks += v
		}
	}
	// The kernel reports these in USER_HZ, 100 on every Linux ABI.
	return time.Duration(ticks) * (time.Second / 100), busy, ok
}
