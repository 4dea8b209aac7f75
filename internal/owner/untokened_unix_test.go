//go:build unix

package owner

import (
	"os"
	"os/exec"
	"testing"
)

// Without tokens (macOS, the BSDs) an owner that recorded none is dead
// once no process with its pid runs; a running pid, an owner that
// recorded a token, and any owner while this process has a token are not.
func TestDeadUntokened(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what        string
		pid         int
		token, mine string
		dead        bool
	}{
		{"gone, no token", gone.Process.Pid, "", "", true},
		{"gone, the placeholder", gone.Process.Pid, "x", "", true},
		{"running", os.Getpid(), "x", "", false},
		{"pid 0", 0, "", "", false},
		{"gone, but tokened", gone.Process.Pid, "n1b2s3", "", false},
		{"gone, this process tokened", gone.Process.Pid, "x", "n1b2s3", false},
	} {
		if got := deadUntokened(c.pid, c.token, c.mine, pidRunning); got != c.dead {
			t.Errorf("%s (%d %q, mine %q): dead %v, want %v", c.what, c.pid, c.token, c.mine, got, c.dead)
		}
	}
}
