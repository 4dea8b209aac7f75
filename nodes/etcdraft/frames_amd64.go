package etcdraft

// returnPCs fills pcs with the return addresses of its caller's frame and
// the frames above it, read off the frame-pointer chain (frames_amd64.s),
// and returns how many it read: the addresses runtime.Callers would give
// for those frames, without the unwinder's search of each function's
// tables, which was a twentieth of an etcd-raft trial at an
// election-timeout draw's six frames (issue 42). Frames inlined into a
// caller have no frame of their own; drawAt looks for them at their
// caller's return address.
//
//go:noescape
func returnPCs(pcs *[unwound]uintptr) int
