// Package cputime reads this process's CPU time, where the system gives it:
// the one getrusage call that the proof-of-work calibration and the
// libraries' CPU benchmarks share.
package cputime
