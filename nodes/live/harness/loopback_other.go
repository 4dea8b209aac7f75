//go:build !linux

package harness

// proxyHost is the address the proxy of link l listens on: 127.0.0.1,
// the one loopback address every system has (loopback_linux.go spreads
// them where the kernel routes 127.0.0.0/8).
func proxyHost(link) string { return "127.0.0.1" }
