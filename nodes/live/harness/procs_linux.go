package harness

import "syscall"

// nodeSysProcAttr puts a node in a process group of its own (a terminal's
// Ctrl-C reaches the harness, which stops the nodes itself, and a kill of
// the group leaves nothing behind) and has the kernel kill it if the
// harness dies without doing so.
func nodeSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
