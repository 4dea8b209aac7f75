//go:build !amd64 && !arm64

package etcdraft

// goid identifies the calling goroutine by its number where no assembly
// reads its record (goid_asm.go).
func goid() uint64 { return goidFromStack() }
