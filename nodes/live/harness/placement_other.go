//go:build !linux

package harness

import (
	"errors"
	"time"
)

// newNetns: hosts made of network namespaces are Linux's.
func newNetns(int, []time.Duration) (placement, error) {
	return nil, errors.New("--netns: hosts as network namespaces need Linux")
}

// removeDeadHosts: no run made hosts off Linux.
func removeDeadHosts() ([]string, error) { return nil, nil }

// newAgents: the agents run in hosts made of network namespaces.
func newAgents(*Options) (placement, error) {
	return nil, errors.New("--netns --agents: hosts as network namespaces need Linux")
}
