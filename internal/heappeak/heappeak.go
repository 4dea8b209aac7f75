package heappeak

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Start samples runtime.MemStats.HeapAlloc every interval from now until
// the returned stop is called; stop waits for the sampler to end and
// returns the highest value seen. Reading MemStats stops the world
// briefly, so an interval of a few milliseconds costs the work little.
func Start(interval time.Duration) (stop func() uint64) {
	var peak atomic.Uint64
	done, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(interval):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-sampled
		return peak.Load()
	}
}
