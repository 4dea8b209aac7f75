package gcfloor

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// current reads the collector's percentage without changing it.
func current() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// afterCollections runs collections until the tuner has set want or a
// second has passed (the finalizer runs on its own goroutine), and returns
// the percentage found.
func afterCollections(want int) int {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		state.Lock()
		p := current()
		state.Unlock()
		if p == want {
			return p
		}
		time.Sleep(time.Millisecond)
	}
	return current()
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{10 << 20, MaxPercent}, // (256-10)/10 = 2460% is capped
		{64 << 20, 300},        // (256-64)/64
		{100 << 20, 156},       // (256-100)/100
		{Floor / 2, 100},       // the default from here on
		{Floor, 100},
		{4 << 30, 100}, // never below the default
	} {
		if got := percent(c.live); got != c.want {
			t.Errorf("percent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// TestRaiseTunesAndRestores: with a small live heap the tuner raises the
// percentage after a collection; nested callers keep it; the last stop
// restores what was there before, and later collections leave it alone.
func TestRaiseTunesAndRestores(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Fatal("this test needs GOGC unset in its environment")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	stop1 := Raise()
	stop2 := Raise()
	if got := afterCollections(MaxPercent); got != MaxPercent {
		t.Fatalf("a test's small heap: GOGC %d after collections, want %d", got, MaxPercent)
	}
	stop1()
	stop1() // a second call of one stop is no second release
	if got := afterCollections(MaxPercent); got != MaxPercent {
		t.Fatalf("one of two callers stopped: GOGC %d, want %d still", got, MaxPercent)
	}
	stop2()
	if got := current(); got != 77 {
		t.Fatalf("after the last stop GOGC is %d, want the 77 found before", got)
	}
	for range 5 {
		runtime.GC()
	}
	time.Sleep(10 * time.Millisecond)
	if got := current(); got != 77 {
		t.Fatalf("collections after the last stop set GOGC to %d: the tuner did not stop", got)
	}
}

// TestRaiseLeavesAUsersGOGC: a GOGC the user set is the user's.
func TestRaiseLeavesAUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	defer debug.SetGCPercent(debug.SetGCPercent(60))
	stop := Raise()
	defer stop()
	for range 3 {
		runtime.GC()
	}
	time.Sleep(10 * time.Millisecond)
	if got := current(); got != 60 {
		t.Fatalf("GOGC set by the user: Raise changed the percentage to %d", got)
	}
}

// tinyNeighbours keeps the small pointer-free objects allocated beside the
// tuner's first sentinel alive, as a busy program's would be.
var tinyNeighbours []*uint32

// TestTunesBesideLiveTinyObjects: the tuner's finalizer runs though small
// pointer-free objects allocated next to its sentinel stay alive. The
// runtime packs such objects (16 bytes or less, no pointers) into one
// block, whose finalizers run only once the whole block is garbage; a
// sentinel packed so made the tuner never start in 5 of 8 runs of 470,000
// trials.
func TestTunesBesideLiveTinyObjects(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Fatal("this test needs GOGC unset in its environment")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for range 20 {
		stop := Raise()
		for range 4 {
			tinyNeighbours = append(tinyNeighbours, new(uint32))
		}
		got := afterCollections(MaxPercent)
		stop()
		if got != MaxPercent {
			t.Fatalf("GOGC %d after collections with the sentinel's neighbours alive, want %d: the tuner never ran", got, MaxPercent)
		}
	}
}
