//go:build !amd64

package etcdraft

import "runtime"

// returnPCs fills pcs with the return addresses of its caller's frame and
// the frames above it by the runtime's unwinder, where no assembly reads
// the frame-pointer chain (frames_amd64.s), and returns how many it read.
func returnPCs(pcs *[unwound]uintptr) int { return runtime.Callers(3, pcs[:]) }
