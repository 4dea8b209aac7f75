package workloads

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/electbench/electbench/internal/owner"
)

// A SIGKILLed run's trace spools are removed by the next run or clean
// only when their owner is provably dead (issue 39 item 11: 4.99 GB were
// left in TMPDIR and nothing removed them): a pid that no longer runs, or
// runs with another start time (reused), in this PID namespace and boot.
// A live owner's spool, another namespace's and one without a token stay.
func TestRemoveDeadSpools(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mine := owner.Token()
	if mine == "" {
		t.Fatal("no spool token on Linux: /proc unreadable")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadPid := gone.Process.Pid
	ns, rest, _ := strings.Cut(strings.TrimPrefix(mine, "n"), "b")
	boot, start, _ := strings.Cut(rest, "s")
	startN, _ := strconv.ParseUint(start, 10, 64)
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	livePid := sleeper.Process.Pid
	liveStart, err := owner.StartTicks(livePid)
	if err != nil {
		t.Fatal(err)
	}
	name := func(pid int, token string) string {
		return SpoolPattern + strconv.Itoa(pid) + "-" + token + "-123"
	}
	tok := func(ns string, start uint64) string {
		return "n" + ns + "b" + boot + "s" + strconv.FormatUint(start, 10)
	}
	files := map[string]bool{ // name → removed
		name(deadPid, tok(ns, startN)):           true,  // gone
		name(livePid, tok(ns, liveStart+1)):      true,  // pid reused by another process
		name(livePid, tok(ns, liveStart)):        false, // its owner runs
		name(deadPid, tok(ns+"1", startN)):       false, // another PID namespace: may run
		name(deadPid, "x"):                       false, // no token: nothing proved
		name(os.Getpid(), mine):                  false, // this run's own
		name(deadPid, "n"+ns+"bffffffffs"+start): false, // another boot or host sharing TMPDIR
	}
	for f := range files {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("events\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := RemoveDeadSpools()
	if err != nil {
		t.Fatal(err)
	}
	for f, want := range files {
		_, statErr := os.Stat(filepath.Join(tmp, f))
		if gotRemoved := os.IsNotExist(statErr); gotRemoved != want || slices.Contains(removed, filepath.Join(tmp, f)) != want {
			t.Errorf("%s: removed %v, want %v", f, gotRemoved, want)
		}
	}
	// A spool this process creates carries its token, and is kept.
	sp, err := newSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.discard()
	if pid, token, ok := spoolOwner(filepath.Base(sp.f.Name())); !ok || pid != os.Getpid() || token != mine || owner.Dead(pid, token) {
		t.Errorf("own spool %s: owner %d %q %v, dead %v", sp.f.Name(), pid, token, ok, owner.Dead(pid, token))
	}
}
