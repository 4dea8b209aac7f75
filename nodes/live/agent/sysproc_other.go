//go:build !unix

package agent

import "syscall"

// sysProcAttr: without process groups or a parent-death signal, the agent's clean-up
// (killAll) is all there is.
func sysProcAttr() *syscall.SysProcAttr { return nil }
