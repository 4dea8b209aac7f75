package harness

import (
	"errors"
	"io"
)

// newHosts: the agents' processes are signalled as Unix's are.
func newHosts(*Hosts, io.Writer) (placement, error) {
	return nil, errors.New("--hosts: a controller of agents needs a Unix system")
}
