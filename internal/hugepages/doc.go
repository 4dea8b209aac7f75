// Package hugepages asks the operating system to back large, long-lived
// arrays with huge pages (2 MB on x86-64 rather than 4 KB), where it can.
//
// A simulated ring of ten million processes fills about a gigabyte of fresh
// memory at set-up (ranks, machines), and with 4 KB pages that is a
// quarter of a million page faults: a fifth of a second of the kernel's
// time before the first event. Linux, whose transparent huge pages are
// commonly enabled for the memory a program asks for (madvise), then
// faults 2 MB at a time. Advise also faults the array in at once, by
// writing it, before anything can read it first (see fault: a page read
// before it is written costs a second fault and a flush on every core).
// Advice is only advice: what an array holds, and every result, is the
// same with it or without, and elsewhere it does nothing.
package hugepages
