package main

import (
	"strings"
	"time"
)

// parseClockOffsets reads --clock-offsets: one duration per --netns host
// (0,250ms,-400ms), each the shift of that host's CLOCK_MONOTONIC; empty
// shifts none.
func parseClockOffsets(s string, netns int) ([]time.Duration, error) {
	if s == "" {
		return nil, nil
	}
	if netns == 0 {
		return nil, badInputf("--clock-offsets %s: the offsets shift the clocks of --netns hosts, and there are none", s)
	}
	parts := strings.Split(s, ",")
	if len(parts) != netns {
		return nil, badInputf("--clock-offsets %s: %d offsets for --netns %d: want one per host", s, len(parts), netns)
	}
	offs := make([]time.Duration, len(parts))
	for i, p := range parts {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil {
			return nil, badInputf("--clock-offsets: host %d: %q is not a duration (250ms, -400ms, 0)", i, p)
		}
		offs[i] = d
	}
	return offs, nil
}
