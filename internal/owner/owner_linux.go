package owner

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Token names this process beyond its pid: its PID namespace, the boot and
// its start time in clock ticks since boot ("n4026531836b1c2d3e4fs123456"),
// or "" if /proc cannot tell. It holds only letters and digits.
func Token() string {
	ns, ok1 := pidNamespace()
	boot, ok2 := bootID()
	start, err := startTicks("self")
	if !ok1 || !ok2 || err != nil {
		return ""
	}
	return fmt.Sprintf("n%sb%ss%d", ns, boot, start)
}

// Dead reports whether the process that pid and token (its Token) name is
// provably gone: it ran in this PID namespace and this boot, and no
// process with its pid and start time runs now. An owner of another
// namespace or boot may live, and a token that does not parse proves
// nothing: both are not dead.
func Dead(pid int, token string) bool {
	ns, rest, ok1 := strings.Cut(strings.TrimPrefix(token, "n"), "b")
	boot, start, ok2 := strings.Cut(rest, "s")
	myNS, ok3 := pidNamespace()
	myBoot, ok4 := bootID()
	if pid <= 0 || !strings.HasPrefix(token, "n") || !ok1 || !ok2 || !ok3 || !ok4 || ns != myNS || boot != myBoot {
		return false
	}
	want, err := strconv.ParseUint(start, 10, 64)
	if err != nil {
		return false
	}
	got, err := StartTicks(pid)
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

// StartTicks is field 22 of /proc/PID/stat, the process's start in clock
// ticks since boot; the error wraps fs.ErrNotExist when no such process
// is visible.
func StartTicks(pid int) (uint64, error) { return startTicks(strconv.Itoa(pid)) }

// startTicks reads the start time of /proc/<which> ("self" for this
// process: its pid in the namespace of /proc's mount may not be
// os.Getpid()).
func startTicks(which string) (uint64, error) {
	path := "/proc/" + which + "/stat"
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces and ')': fields are
	// counted after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("%s: no start time", path)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, fmt.Errorf("%s: no start time", path)
	}
	t, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: start time: %w", path, err)
	}
	return t, nil
}
