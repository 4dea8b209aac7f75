package harness

import "time"

// The netns placement's hosts (placement_linux.go) for the clock estimate
// (clock.go).

func (h netns) hostCount() int { return len(h.set.Hosts()) }

func (h netns) shiftClock(host int, off time.Duration) error { return h.set.SetClock(host, off) }
