package main

import (
	"errors"
	"strings"
	"testing"
)

// --netns is refused in one line, as bad input (exit 2), where it cannot
// be honoured: without root above all, before anything runs.
func TestCheckNetns(t *testing.T) {
	for _, c := range []struct {
		k          int
		live, root bool
		want       string // "" for accepted
	}{
		{0, false, false, ""},
		{3, true, true, ""},
		{3, true, false, "--netns 3: hosts made of network namespaces need root"},
		{3, false, true, "--netns: this run has no live trials"},
		{-1, true, true, "--netns -1: want 1 to 252 hosts"},
		{253, true, true, "--netns 253: want 1 to 252 hosts"},
	} {
		err := checkNetns(c.k, c.live, c.root)
		if c.want == "" {
			if err != nil {
				t.Errorf("--netns %d (live %v, root %v): %v", c.k, c.live, c.root, err)
			}
			continue
		}
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitBadInput || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--netns %d (live %v, root %v): %v, want one line starting %q, exit %d", c.k, c.live, c.root, err, c.want, exitBadInput)
		}
	}
}
