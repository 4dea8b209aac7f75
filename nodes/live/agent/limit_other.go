//go:build !unix

package agent

// descriptorLimit is unknown (0) without RLIMIT_NOFILE.
func descriptorLimit() int32 { return 0 }
