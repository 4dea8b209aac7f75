//go:build !linux

package harness

import "errors"

// newNetns: hosts made of network namespaces are Linux's.
func newNetns(int) (placement, error) {
	return nil, errors.New("--netns: hosts as network namespaces need Linux")
}

// removeDeadHosts: no run made hosts off Linux.
func removeDeadHosts() ([]string, error) { return nil, nil }
