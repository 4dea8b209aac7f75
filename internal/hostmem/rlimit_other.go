//go:build !unix

package hostmem

// addressSpaceLimit: no address-space limit known off Unix.
func addressSpaceLimit() (int64, bool) { return 0, false }
