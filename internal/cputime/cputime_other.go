//go:build !unix

package cputime

import "time"

// Self is unknown here: getrusage is a Unix call.
func Self() (time.Duration, bool) { return 0, false }
