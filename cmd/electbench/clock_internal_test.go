package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseClockOffsets: --clock-offsets takes one duration per --netns
// host, and refuses, in one line naming the flag, what it cannot honour.
func TestParseClockOffsets(t *testing.T) {
	got, err := parseClockOffsets("0,250ms, -400ms", 3)
	if want := []time.Duration{0, 250 * time.Millisecond, -400 * time.Millisecond}; err != nil || !slices.Equal(got, want) {
		t.Errorf("0,250ms,-400ms on 3 hosts: %v, %v; want %v", got, err, want)
	}
	if got, err := parseClockOffsets("", 3); err != nil || got != nil {
		t.Errorf("none: %v, %v", got, err)
	}
	for _, c := range []struct {
		s     string
		netns int
		want  string
	}{
		{"250ms", 0, "there are none"},
		{"0,250ms", 3, "2 offsets for --netns 3"},
		{"0,250,1s", 3, `host 1: "250" is not a duration`},
	} {
		_, err := parseClockOffsets(c.s, c.netns)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "--clock-offsets") {
			t.Errorf("%q on %d hosts: %v, want an error with %q", c.s, c.netns, err, c.want)
		}
	}
}
