//go:build !linux

package harness

import (
	"context"
	"fmt"

	"github.com/electbench/electbench/nodes"
	serveralgs "github.com/electbench/electbench/nodes/servers"
	"github.com/electbench/electbench/nodes/trial"
)

// sysServer stands for a server definition, which exists only on Linux,
// where the system kind builds (nftables, the parent-death signal).
type sysServer struct{}

// systemServer is nil outside Linux: CheckSystem refuses a server
// algorithm before it gets here.
func systemServer(*nodes.Algorithm) *sysServer { return nil }

// CheckSystem refuses a server algorithm outside Linux.
func CheckSystem(a *nodes.Algorithm) error {
	if serveralgs.Is(a) {
		return fmt.Errorf("%s needs Linux (nftables, the parent-death signal)", a.Name)
	}
	return nil
}

func runSystem(context.Context, *sysServer, *trial.Config, func(string, ...any)) (*Result, error) {
	panic("harness: runSystem without a server definition")
}
