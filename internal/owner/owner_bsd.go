//go:build unix && !linux

package owner

import "errors"

// Token is empty where /proc cannot be read (macOS, the BSDs).
func Token() string { return "" }

// Dead is deadUntokened's rule: these systems have no PID namespaces, so
// a pid names one process of the whole host but for its reuse.
func Dead(pid int, token string) bool { return deadUntokened(pid, token, Token(), pidRunning) }

// StartTicks cannot be read here.
func StartTicks(int) (uint64, error) { return 0, errors.ErrUnsupported }
