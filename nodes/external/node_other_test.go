//go:build !linux

package external_test

import "time"

// starve computes for cpu of wall time: without Linux's affinity the
// program cannot be starved on purpose here.
func starve(cpu time.Duration) {
	for start := time.Now(); time.Since(start) < cpu; {
	}
}

// hog has nothing to starve here.
func hog() int { return 0 }
