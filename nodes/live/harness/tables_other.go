//go:build !linux

package harness

// removeDeadTables has nothing to remove: link cuts (netcut) are nftables
// rules, which only Linux has.
func removeDeadTables() ([]string, error) { return nil, nil }
