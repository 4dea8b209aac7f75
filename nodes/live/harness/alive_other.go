//go:build !unix

package harness

// processAlive cannot tell here: every process is taken to run, so nothing
// is removed on its account.
func processAlive(int) bool { return true }
