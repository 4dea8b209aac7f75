package workloads

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// spoolToken names this process beyond its pid, so that a later run can
// prove it dead: its PID namespace, the boot and its start time in clock
// ticks since boot ("n4026531836b1c2d3e4fs123456"). A pid alone proves
// nothing: it is reused, and is another process's in another namespace.
func spoolToken() string {
	ns, ok1 := pidNamespace()
	boot, ok2 := bootID()
	start, err := startTicks(os.Getpid())
	if !ok1 || !ok2 || err != nil {
		return ""
	}
	return fmt.Sprintf("n%sb%ss%d", ns, boot, start)
}

// spoolOwnerDead reports whether the process a spool's pid and token name
// is provably gone: it ran in this PID namespace and this boot, and no
// process with its pid and start time runs now. An owner of another
// namespace or boot (a container, another host sharing TMPDIR) may live:
// its spool is kept.
func spoolOwnerDead(pid int, token string) bool {
	ns, rest, ok1 := strings.Cut(strings.TrimPrefix(token, "n"), "b")
	boot, start, ok2 := strings.Cut(rest, "s")
	myNS, ok3 := pidNamespace()
	myBoot, ok4 := bootID()
	if !ok1 || !ok2 || !ok3 || !ok4 || ns != myNS || boot != myBoot {
		return false
	}
	want, err := strconv.ParseUint(start, 10, 64)
	if err != nil {
		return false
	}
	got, err := startTicks(pid)
	return errors.Is(err, fs.ErrNotExist) || err == nil && got != want
}

// pidNamespace is the inode of this process's PID namespace.
func pidNamespace() (string, bool) {
	link, err := os.Readlink("/proc/self/ns/pid")
	ino, ok := strings.CutPrefix(link, "pid:[")
	ino, ok2 := strings.CutSuffix(ino, "]")
	return ino, err == nil && ok && ok2 && ino != ""
}

// bootID is the first 8 hex digits of this boot's id.
func bootID() (string, bool) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	id := strings.ReplaceAll(strings.TrimSpace(string(b)), "-", "")
	if err != nil || len(id) < 8 {
		return "", false
	}
	return id[:8], true
}

// startTicks is field 22 of /proc/PID/stat, the process's start in clock
// ticks since boot; the error wraps fs.ErrNotExist when no such process
// is visible.
func startTicks(pid int) (uint64, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces and ')': fields are
	// counted after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 20 {
		return 0, fmt.Errorf("%s: no start time", path)
	}
	t, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: start time: %w", path, err)
	}
	return t, nil
}

// ownedByMe reports whether this user owns the file.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == syscall.Getuid()
}
