//go:build linux

package hostns

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// printClockEnv makes this test binary print its CLOCK_MONOTONIC and exit
// (TestMain): a process to start inside a host.
const printClockEnv = "HOSTNS_PRINT_CLOCK"

func TestMain(m *testing.M) {
	if os.Getenv(printClockEnv) != "" {
		fmt.Println(monotonic())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func monotonic() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// TestShiftedClocks: a process started on a host whose clock is shifted
// reads CLOCK_MONOTONIC that far from the owner's (between two readings of
// the owner's, less the offset), and its /proc/PID/timens_offsets says so;
// a host not shifted shares the owner's clock; a shifted host's processes
// still reach the bridge (the network namespace is kept).
func TestShiftedClocks(t *testing.T) {
	s := newSet(t, os.Getpid(), ownerToken(), 3)
	defer s.Close()
	offs := []time.Duration{250 * time.Millisecond, -400 * time.Millisecond, 0}
	for i, off := range offs {
		if err := s.SetClock(i, off); err != nil {
			t.Fatal(err)
		}
	}
	for i, off := range offs {
		before := monotonic()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), printClockEnv+"=1")
		var out strings.Builder
		cmd.Stdout = &out
		if err := s.Start(i, cmd); err != nil {
			t.Fatalf("host %d: %v", i, err)
		}
		offsets, _ := os.ReadFile(fmt.Sprintf("/proc/%d/timens_offsets", cmd.Process.Pid))
		if err := cmd.Wait(); err != nil {
			t.Fatalf("host %d: %v", i, err)
		}
		after := monotonic()
		got, err := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64)
		if err != nil {
			t.Fatalf("host %d printed %q: %v", i, out.String(), err)
		}
		if own := got - int64(off); own < before || own > after {
			t.Errorf("host %d (shifted %v) read %d: less the shift, not within the owner's [%d, %d]", i, off, got, before, after)
		}
		// A process that ended before it was read shows nothing; one
		// still running shows its namespace's offset.
		first, _, _ := strings.Cut(string(offsets), "\n")
		if want := strings.Fields(string(timensOffset(off))); len(offsets) > 0 && strings.Join(strings.Fields(first), " ") != strings.Join(want, " ") {
			t.Errorf("host %d: /proc/PID/timens_offsets = %q, want first %q", i, offsets, want)
		}
	}
}

func TestTimensOffset(t *testing.T) {
	for _, c := range []struct {
		off  time.Duration
		want string
	}{
		{250 * time.Millisecond, "monotonic 0 250000000\n"},
		{-400 * time.Millisecond, "monotonic -1 600000000\n"},
		{-2 * time.Second, "monotonic -2 0\n"},
		{1500 * time.Millisecond, "monotonic 1 500000000\n"},
	} {
		if got := string(timensOffset(c.off)); got != c.want {
			t.Errorf("timensOffset(%v) = %q, want %q", c.off, got, c.want)
		}
	}
}
