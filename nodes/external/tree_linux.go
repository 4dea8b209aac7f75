package external

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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
func stat(pid int) []string { return fields("/proc/" + strconv.Itoa(pid) + "/stat") }

// fields returns the fields of a stat file (a process's or a task's) after
// the command's name; nil if it cannot be read.
func fields(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := string(b) // pid (comm) state ...: comm may hold spaces
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}

// activity reads the schedstat of every task (thread) of process group
// pgid (/proc/PID/task/TID/schedstat: ns on a CPU, ns waiting on a run
// queue, timeslices) into tasks, which keeps each task's from one call to
// the next, and returns what its tasks did since: cpu, the most CPU time
// one task used; active, the most time one task ran or waited on a run
// queue (a task first seen counts from nothing if fromZero, it began
// since, and otherwise from now). The most, not the sum: tasks run side
// by side. runnable says that a task is running, on a run queue or in a
// disk wait now; ok, that some task's schedstat could be read.
func activity(pgid int, tasks map[int]taskSched, fromZero bool) (cpu, active time.Duration, runnable, ok bool) {
	for _, pid := range group(pgid) {
		dir := "/proc/" + strconv.Itoa(pid) + "/task/"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			b, err := os.ReadFile(dir + e.Name() + "/schedstat")
			now, read := parseSched(b, err)
			if !read {
				continue
			}
			ok = true
			prev, seen := tasks[tid]
			if !seen && !fromZero {
				prev = now
			}
			cpu = max(cpu, time.Duration(now.cpu-prev.cpu))
			active = max(active, time.Duration(now.cpu-prev.cpu+now.delay-prev.delay))
			if st := fields(dir + e.Name() + "/stat"); len(st) > 0 && (st[0] == "R" || st[0] == "D") {
				runnable = true
			}
			tasks[tid] = now
		}
	}
	return cpu, active, runnable, ok
}

// taskSched is one task's schedstat: ns on a CPU, ns on a run queue,
// timeslices.
type taskSched struct{ cpu, delay, slices int64 }

// parseSched parses a schedstat file's content b, read with error err.
func parseSched(b []byte, err error) (t taskSched, ok bool) {
	f := strings.Fields(string(b))
	if err != nil || len(f) < 3 {
		return t, false
	}
	for i, v := range []*int64{&t.cpu, &t.delay, &t.slices} {
		if *v, err = strconv.ParseInt(f[i], 10, 64); err != nil {
			return t, false
		}
	}
	return t, true
}

// openSched opens the schedstat of process pid's own task, to be read by
// readSched at each step's start; nil if it cannot.
func openSched(pid int) *os.File {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/schedstat")
	if err != nil {
		return nil
	}
	return f
}

// readSched reads f, opened by openSched, afresh: one pread, which the
// kernel answers with the task's counters now.
func readSched(f *os.File) (taskSched, bool) {
	if f == nil {
		return taskSched{}, false
	}
	var buf [96]byte
	n, err := f.ReadAt(buf[:], 0)
	if err == io.EOF {
		err = nil
	}
	return parseSched(buf[:n], err)
}

// unread is how many bytes the pipe f holds that nobody has read yet
// (FIONREAD, which Linux names TIOCINQ).
func unread(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return n
}
