//go:build unix && !linux

package external

import "syscall"

// procAttr puts the child in its own process group. Without Pdeathsig a
// child can outlive a harness killed with SIGKILL on this system; a normal
// exit, an error or Ctrl-C still stops every child.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
