// Package prefault faults large, fresh arrays in at once, by writing them,
// on both cores, before anything reads them.
//
// A simulated ring of ten million processes fills about 300 MB of fresh
// memory at set-up (the ranks, machines). Go does not write a large array
// it takes fresh from the operating system, so each page is faulted in
// where the program first touches it: one after another on one core, and
// twice where the first touch is a read (see Touch), such as the garbage
// collector's scan of an array that holds pointers. Make allocates an
// array and faults its pages in by writes, the two halves at once, before
// a collection can scan it.
//
// The arrays keep the system's page size. Measured on a 2-core virtual
// machine, whole process, a ten-million ring whose large arrays asked Linux
// for 2 MB pages (madvise) spent 1.35–2.0 s in the kernel, clearing them,
// where with 4 KB pages it spent 0.4–0.7 s, when runs alternate with other
// programs (2.54–2.90 s wall against 3.05–3.51); only back to back, when a
// run finds the huge pages the one before it freed, were 2 MB pages faster
// (0.2 s in the kernel). The shuffle of the ranks, whose random swaps were
// the reason to want fewer TLB misses, took 13–19 ns a swap either way.
// What an array holds, and every result, is the same with Touch or without.
package prefault
