package external

import (
	"os"
	"syscall"
)

// procAttr: Windows has no process groups; a program is killed by its
// process, and one that started children of its own may leave them.
func procAttr() *syscall.SysProcAttr { return nil }

// killGroup kills the process pgid leads (Windows has no groups).
func killGroup(pgid int) error {
	p, err := os.FindProcess(pgid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// killPid kills one process.
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
