//go:build amd64 || arm64

package etcdraft

// goid identifies the calling goroutine among the live ones: the address
// of its runtime record (g), read in a few instructions (goid_amd64.s,
// goid_arm64.s). runtime.Stack, which gave the goroutine's number, took
// about half the CPU of a sweep of 5-process etcd-raft trials, called at
// every election-timeout draw (issue 42). A record outlives its goroutine
// and may be reused by a later one, which then finds the dead goroutine's
// slot: a slot is empty outside a step (leave), so that later goroutine
// takes it over as its own, as here would have given it a fresh one.
func goid() uint64 { return uint64(getg()) }

// getg returns the calling goroutine's g.
func getg() uintptr
