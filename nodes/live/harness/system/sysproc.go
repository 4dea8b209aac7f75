//go:build linux

package system

import "syscall"

// memberSysProcAttr runs a member as its own uid, in a process group of
// its own (Crash kills the group) and killed by the kernel if electbench
// dies without doing so.
func memberSysProcAttr(uid uint32) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL,
		Credential: &syscall.Credential{Uid: uid, Gid: uid}}
}
