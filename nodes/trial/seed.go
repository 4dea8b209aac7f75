package trial

// Mix is splitmix64's finaliser: distinct inputs give unrelated values. The
// runtimes and the workload derive every stream of a trial's randomness
// from its seed with it.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
