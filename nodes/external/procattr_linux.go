package external

import "syscall"

// procAttr puts the child in its own process group and has the kernel kill
// it when the harness dies, however it dies (Pdeathsig), so that no node
// program outlives a crashed or killed harness.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
