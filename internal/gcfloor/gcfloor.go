package gcfloor

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Floor is the heap goal below which the collector is not asked to run
// more often than MaxPercent allows: a run of small trials keeps a live
// heap of 5 to 20 MB, whose default goal (GOGC 100: twice the live heap)
// makes a collection every few hundred trials.
const Floor = 256 << 20

// MaxPercent bounds the percentage Raise sets: at a live heap of 10 MB the
// goal is 60 MB, not the Floor, so that a small run's peak memory stays
// within a few times its live heap.
const MaxPercent = 500

// state is the one tuner of the process: the collector's percentage is
// the process's, and executors run side by side (tests, a hunt's shrinks).
var state struct {
	sync.Mutex
	users int
	old   int  // the percentage before the first Raise
	gen   uint // the tuner's generation: a finalizer of an ended one stops
	set   int  // the percentage last set, to skip a call that changes nothing
	// Hold's share: the holders, and the percentage and memory limit to
	// restore when the last lets go (what a Raise or its tuner set
	// meanwhile goes to heldPercent, not to the runtime).
	held        int
	heldPercent int
	heldLimit   int64
}

// Raise lifts the collector's goal to about Floor while the live heap is
// small, by setting GOGC after each collection from the live heap it
// found: percent = 100 × (Floor − live) / live, between 100 and
// MaxPercent. A large live heap gets the default (100), never less, so a
// big run's peak is what it was. Raise does nothing when the user set
// GOGC. Calls nest; the returned stop, called once, ends this caller's
// share, and the last one restores the percentage found by the first.
func Raise() (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	state.Lock()
	defer state.Unlock()
	state.users++
	if state.users == 1 {
		state.gen++
		state.old = setPercent(100)
		state.set = 100
		arm(state.gen)
	}
	var once sync.Once
	return func() { once.Do(release) }
}

func release() {
	state.Lock()
	defer state.Unlock()
	state.users--
	if state.users == 0 {
		state.gen++ // the armed finalizer sees it and stops
		setPercent(state.old)
	}
}

// sentinel is an object that becomes garbage at once: its finalizer runs
// after the collection that found it, tunes, and arms the next one. Its
// pointer keeps it out of the runtime's tiny blocks, which pack objects of
// 16 bytes or less without pointers together and run their finalizers
// only once the whole block is garbage: a sentinel of a uint alone shared
// a block with live data, and the tuner never ran (TestTunesBesideLiveTinyObjects).
type sentinel struct {
	gen uint
	_   *sentinel
}

func arm(gen uint) {
	s := &sentinel{gen: gen}
	runtime.SetFinalizer(s, tune)
}

func tune(s *sentinel) {
	state.Lock()
	defer state.Unlock()
	if s.gen != state.gen {
		return // stopped (or restarted: the new generation armed its own)
	}
	if p := percent(liveHeap()); p != state.set {
		setPercent(p)
		state.set = p
	}
	arm(s.gen)
}

// setPercent sets the collector's percentage, or, while a Hold stops the
// collector, the one to restore, and returns the one it replaces. The
// caller holds state's lock.
func setPercent(p int) int {
	if state.held > 0 {
		old := state.heldPercent
		state.heldPercent = p
		return old
	}
	return debug.SetGCPercent(p)
}

// percent is the collector's percentage for a live heap of live bytes.
func percent(live uint64) int {
	if live == 0 || live >= Floor/2 {
		return 100
	}
	p := 100 * float64(Floor-live) / float64(live)
	return int(math.Min(p, MaxPercent))
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// liveHeap is the heap the last collection marked live (read without
// stopping the world, unlike runtime.ReadMemStats).
func liveHeap() uint64 {
	metrics.Read(liveSample)
	if liveSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return liveSample[0].Value.Uint64()
}
