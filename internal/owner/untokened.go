package owner

// deadUntokened is Dead's rule where this process has no token (mine is
// ""): on systems without /proc, which have no PID namespaces either, an
// owner that recorded no token ("", or the "x" callers write in its
// place) is dead once no process with its pid runs (running tells). A
// reused pid keeps its resources until that process ends too: kept, never
// wrongly taken. An owner that recorded a token ran where tokens exist
// (another system sharing the directory), and is never proved dead here;
// nor is anything while this process has a token, Dead's own rule then.
func deadUntokened(pid int, token, mine string, running func(pid int) bool) bool {
	return mine == "" && (token == "" || token == "x") && pid > 0 && !running(pid)
}
