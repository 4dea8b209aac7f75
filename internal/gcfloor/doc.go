// Package gcfloor raises the Go collector's goal while a run's trials go
// and its live heap is small, so that a run of many small trials is not
// collected every few hundred trials, and leaves a large heap's goal at
// the default so a big run's peak memory does not grow.
//
// It is the technique of the gc tuners of large Go services (Uber's, and
// ByteDance's util/gctuner): a finalizer called after each collection sets
// GOGC from the live heap. It is written here rather than imported because
// gctuner reads the heap with runtime.ReadMemStats, which stops the world
// at every collection, lowers GOGC below 100 by default, cannot nest, and
// does not restore the percentage it found (a command holding rows sets
// its own).
//
// Hold, for a phase that allocates what it keeps (a live cluster's
// set-up), stops the collector up to a memory limit; it nests with Raise.
package gcfloor
