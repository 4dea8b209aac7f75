//go:build !linux

package harness

import "errors"

// ErrNetnsNotRoot is never returned off Linux: newNetns refuses first.
var ErrNetnsNotRoot = errors.New("hosts as network namespaces (--netns) need root")

func newNetns(k int) (placement, error) {
	return nil, errors.New("--netns: hosts as network namespaces need Linux")
}

// removeDeadHosts: no run made hosts off Linux.
func removeDeadHosts() ([]string, error) { return nil, nil }
