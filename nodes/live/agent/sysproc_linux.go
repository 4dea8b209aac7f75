package agent

import "syscall"

// sysProcAttr puts a process in a group of its own (signals reach what it
// starts) and has the kernel kill it if the agent dies, so that not even
// a SIGKILLed agent leaves processes behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
