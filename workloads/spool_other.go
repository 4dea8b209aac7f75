//go:build !linux

package workloads

import "io/fs"

// spoolToken is empty where the start time of a process cannot be read:
// such a spool is never proved dead, so never removed by a later run.
func spoolToken() string { return "" }

func spoolOwnerDead(int, string) bool { return false }

func ownedByMe(fs.FileInfo) bool { return false }
