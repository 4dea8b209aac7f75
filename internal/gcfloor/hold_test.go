package gcfloor

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// cycles is the number of collections finished so far.
func cycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sink keeps allocations alive so that the compiler cannot drop them.
var sink [][]byte

// Hold stops collections while what is allocated stays within the
// headroom, sets a memory limit at the headroom, and the last of nested
// holds restores the percentage and the limit found, also when a Raise
// began and ended in between.
func TestHoldStopsAndRestores(t *testing.T) {
	if _, set := os.LookupEnv("GOGC"); set {
		t.Fatal("this test needs GOGC unset in its environment")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(77))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	release1 := Hold(512 << 20)
	if limit := debug.SetMemoryLimit(-1); limit == math.MaxInt64 || uint64(limit) > runtimeMemory()+512<<20 {
		t.Fatalf("memory limit %d under a hold of 512 MiB headroom, with %d bytes held now", limit, runtimeMemory())
	}
	release2 := Hold(1 << 30)
	stop := Raise()
	before := cycles()
	for range 64 {
		sink = append(sink, make([]byte, 1<<20)) // 64 MiB: 16 collections at GOGC 100 from a 4 MB heap
	}
	sink = nil
	if n := cycles() - before; n != 0 {
		t.Errorf("%d collections while held", n)
	}
	if got := current(); got != -1 {
		t.Errorf("GOGC %d while held, want off (-1)", got)
	}
	stop()
	release1()
	release1() // a second call of one release is no second release
	if got := current(); got != -1 {
		t.Errorf("one of two holders let go: GOGC %d, want off (-1) still", got)
	}
	release2()
	if got := current(); got != 77 {
		t.Errorf("after the last release GOGC is %d, want the 77 found before", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after the last release the memory limit is %d, want none", got)
	}
}

// TestHoldLeavesAUsersGOGC: a GOGC the user set is the user's.
func TestHoldLeavesAUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "100")
	defer debug.SetGCPercent(debug.SetGCPercent(60))
	release := Hold(1 << 30)
	defer release()
	if got := current(); got != 60 {
		t.Fatalf("GOGC set by the user: Hold changed the percentage to %d", got)
	}
}
