//go:build !unix

package agent

import "fmt"

// signal refuses: process groups and SIGSTOP are Unix's.
func (p *proc) signal(n int32) error {
	return fmt.Errorf("agent: process %d: signals need a Unix host", p.id)
}

func (p *proc) kill() { p.cmd.Process.Kill() }
