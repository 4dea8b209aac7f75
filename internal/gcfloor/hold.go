package gcfloor

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Hold stops the collector for a phase that allocates what it keeps,
// until the memory the Go runtime holds has grown by headroom bytes (a
// memory limit, past which the collector runs as the limit requires): a
// live cluster's set-up builds the relays of thousands of proxies, which
// its trial keeps, and collecting while they grow marks the same
// goroutine stacks again at every doubling of the heap. Hold does nothing
// when the user set GOGC, and never raises a memory limit already set.
// Calls nest, Raise's tuning included; the returned release, called
// once, ends this caller's share, and the last one restores the
// percentage (or what Raise set meanwhile) and the memory limit.
func Hold(headroom uint64) (release func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	state.Lock()
	defer state.Unlock()
	state.held++
	if state.held == 1 {
		state.heldLimit = debug.SetMemoryLimit(-1)
		if limit := runtimeMemory() + headroom; limit < uint64(state.heldLimit) {
			debug.SetMemoryLimit(int64(limit))
		}
		state.heldPercent = debug.SetGCPercent(-1)
	}
	var once sync.Once
	return func() { once.Do(unhold) }
}

func unhold() {
	state.Lock()
	defer state.Unlock()
	state.held--
	if state.held == 0 {
		debug.SetGCPercent(state.heldPercent)
		debug.SetMemoryLimit(state.heldLimit)
	}
}

var memorySamples = []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}

// runtimeMemory is the memory a memory limit counts: all the runtime
// mapped, less what it returned to the system.
func runtimeMemory() uint64 {
	metrics.Read(memorySamples)
	if memorySamples[0].Value.Kind() != metrics.KindUint64 || memorySamples[1].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64 // unknown: no limit
	}
	return memorySamples[0].Value.Uint64() - memorySamples[1].Value.Uint64()
}
