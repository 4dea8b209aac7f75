// Package hostns makes hosts out of Linux network namespaces, so that a
// live cluster spread over several hosts can run, and be tested, on one
// machine (`electbench run --netns K`, docs/multi-host.md).
//
// New builds K namespaces, each with its own address on a bridge in the
// caller's namespace (which holds an address of its own on the same
// bridge, so that it reaches every host: the harness drives each host's
// Toxiproxy server across it). Listen and Start open a socket or start a
// process inside a host, NetNS hands its namespace to calls that take one
// (an nftables connection, for cuts between hosts):
// a socket stays in the namespace it was made in, and a process inherits
// the namespace of the thread that forked it. SetClock shifts a host's
// CLOCK_MONOTONIC: its processes are then started in a time namespace of
// the host's, by a thread of its own (clock.go). Close removes everything.
//
// Everything a Set makes is named after a hash of its owner's pid and
// token (owner.Token), Name — the namespaces "eb<hash>-<i>" (bind-mounted
// under /run/netns, so that they outlive a killed owner and can be
// found), the bridge "eb<hash>" and the bridge's ports "eb<hash>-<i>" —
// and a state file /run/electbench/hostns/eb<hash> written first names
// the owner (an interface name, 15 bytes at most, cannot hold a token).
// RemoveDead, run by the next run or `electbench clean`, removes what an
// owner killed before it could clean up left once the owner is provably
// gone (owner.Dead); a run of another PID namespace sharing this network
// namespace is kept, whatever its pid. It needs root
// (CAP_NET_ADMIN and CAP_SYS_ADMIN): without it New fails with ErrNotRoot.
package hostns
