//go:build unix

package agent

import (
	"fmt"
	"syscall"
)

// The signals a controller may ask for, by the protocol's numbers: a
// crash, a pause and its end, as this system numbers them.
var signals = map[int32]syscall.Signal{
	SigKill: syscall.SIGKILL,
	SigStop: syscall.SIGSTOP,
	SigCont: syscall.SIGCONT,
}

// signal delivers the protocol's signal n to p's process group (p leads it), so
// that anything p started is crashed or paused with it, as the harness
// does to its own nodes.
func (p *proc) signal(n int32) error {
	sig, ok := signals[n]
	if !ok {
		return fmt.Errorf("agent: process %d: signal %d is not SigKill (1), SigStop (2) or SigCont (3)", p.id, n)
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil {
		return fmt.Errorf("agent: sending %v to process %d (pid %d): %w", sig, p.id, p.cmd.Process.Pid, err)
	}
	return nil
}

// kill kills p's process group.
func (p *proc) kill() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }
