package harness

import "os"

// warm is what a kept cluster keeps of its node processes after a clean
// trial: the processes themselves, each with its identity, its listener
// and its links up (the node's reset), for the cluster's next trial. That
// trial spawns nothing and shakes no hands: its set-up is a configure per
// node, which gives each its new position, and the links it finds up. At
// N = 64 a new set-up is 64 processes and 4,032 authenticated handshakes,
// seconds of CPU on a small host.
//
// What a trial sees is unchanged: the nodes start from nothing (no
// machine, timer, count or stable state survives a reset), every proxy is
// put back as created (kept.reset), and a message of the last trial
// still in flight is stale in the next (an EPOCH frame marks each link's
// trial), dropped and never delivered. The identities stay: a cluster's
// trials rank the same minted identities, arranged as each trial's ranks
// say.
//
// Only a clean trial leaves its processes warm (keepable); after any other
// the processes are stopped and the next trial starts new ones, as does a
// trial that wants something the kept ones cannot give (warmable).
type warm struct {
	procs *procs // with the identities' directory, the cluster's while it is warm, and the last trial's epoch
}

// stop kills the kept processes, waits for their readers and removes
// their directory.
func (w *warm) stop() {
	w.procs.release()
	os.RemoveAll(w.procs.dir)
}
