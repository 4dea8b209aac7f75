package harness

import "time"

// shiftClock shifts a netns host's clock (clock.go's shifter), before
// anything starts on it (newNetns).
func (h netns) shiftClock(host int, off time.Duration) error { return h.set.SetClock(host, off) }
