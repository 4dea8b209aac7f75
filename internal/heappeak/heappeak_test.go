package heappeak

import (
	"runtime"
	"testing"
	"time"
)

var held []byte

// TestStartSeesAnAllocationHeld: 64 MiB held while the sampler runs shows
// in its peak; released and collected, it does not show in a later one.
func TestStartSeesAnAllocationHeld(t *testing.T) {
	runtime.GC()
	stop := Start(time.Millisecond)
	held = make([]byte, 64<<20)
	time.Sleep(20 * time.Millisecond)
	if p := stop(); p < 64<<20 {
		t.Fatalf("peak %d MiB with 64 MiB held", p>>20)
	}
	held = nil
	runtime.GC()
	stop = Start(time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	if p := stop(); p >= 64<<20 {
		t.Fatalf("peak %d MiB after the 64 MiB were released", p>>20)
	}
}
