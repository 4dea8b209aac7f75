package live

import "golang.org/x/sys/unix"

// Mono reads CLOCK_MONOTONIC, which every process on a Linux host shares, in
// nanoseconds: the harness's t0 and every node's clock are on it.
func Mono() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic("live: CLOCK_MONOTONIC: " + err.Error())
	}
	return ts.Nano()
}
