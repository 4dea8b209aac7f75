package harness

import (
	"errors"
	"os"
	"syscall"
)

// nodeSysProcAttr: Windows has no process groups to kill at once; a node
// exits when its control channel (stdin) closes.
func nodeSysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

var errNoPause = errors.New("pausing a process needs SIGSTOP, which Windows lacks")

func pauseGroup(int) error  { return errNoPause }
func resumeGroup(int) error { return errNoPause }
