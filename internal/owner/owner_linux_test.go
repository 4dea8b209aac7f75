package owner

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Dead proves a process gone only in this PID namespace and boot: a pid
// that no longer runs, or runs with another start time (reused). A live
// owner, one of another namespace or boot, and a token that does not
// parse are not dead.
func TestDead(t *testing.T) {
	mine := Token()
	if mine == "" {
		t.Fatal("no token on Linux: /proc unreadable")
	}
	if Dead(os.Getpid(), mine) {
		t.Fatalf("this process, %d %s, taken for dead", os.Getpid(), mine)
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	liveStart, err := StartTicks(sleeper.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	ns, rest, _ := strings.Cut(strings.TrimPrefix(mine, "n"), "b")
	boot, start, _ := strings.Cut(rest, "s")
	tok := func(ns, boot string, start string) string { return "n" + ns + "b" + boot + "s" + start }
	live := strconv.FormatUint(liveStart, 10)
	for _, c := range []struct {
		what  string
		pid   int
		token string
		dead  bool
	}{
		{"gone", gone.Process.Pid, tok(ns, boot, start), true},
		{"pid reused", sleeper.Process.Pid, tok(ns, boot, live+"1"), true},
		{"running", sleeper.Process.Pid, tok(ns, boot, live), false},
		{"another PID namespace", gone.Process.Pid, tok(ns+"1", boot, start), false},
		{"another boot", gone.Process.Pid, tok(ns, "ffffffff", start), false},
		{"no token", gone.Process.Pid, "x", false},
		{"empty", gone.Process.Pid, "", false},
	} {
		if got := Dead(c.pid, c.token); got != c.dead {
			t.Errorf("%s (%d %s): dead %v, want %v", c.what, c.pid, c.token, got, c.dead)
		}
	}
}
