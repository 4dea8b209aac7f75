// Package heappeak samples the Go heap while a piece of work runs, for the
// tests that bound what a reader, a writer or a run holds: the highest
// HeapAlloc seen, read every interval until the sampler is stopped.
package heappeak
