package main

import (
	"os"
	"regexp"
	"testing"
)

// An internal failure's stack goes to a file the one line names, not to
// the terminal.
func TestKeepStack(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	line := keepStack([]byte("goroutine 1 [running]:\nmain.boom()\n"))
	m := regexp.MustCompile(`^ \(a bug of electbench: its stack is in (\S+); please report it\)$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("line %q does not name the stack's file", line)
	}
	b, err := os.ReadFile(m[1])
	if err != nil || string(b) != "goroutine 1 [running]:\nmain.boom()\n" {
		t.Fatalf("stack file %s: %q, %v", m[1], b, err)
	}
}
