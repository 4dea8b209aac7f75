//go:build !linux

package harness

// proxyHost is the address the proxy of a link into spawn index to
// listens on: 127.0.0.1, the one loopback address every system has
// (loopback_linux.go spreads them where the kernel routes 127.0.0.0/8).
func proxyHost(int) string { return "127.0.0.1" }
