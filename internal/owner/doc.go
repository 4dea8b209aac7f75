// Package owner names the process that owns a resource left on a shared
// host (a temporary directory, a trace spool, a proxy on a shared
// Toxiproxy) well enough that a later process can prove it dead before
// removing what it left.
//
// A pid alone proves nothing: pids are reused, and a pid not visible here
// may be a running process of another PID namespace (a container sharing
// TMPDIR or a Toxiproxy server). Token names this process by its PID
// namespace (the inode of /proc/self/ns/pid), the boot
// (/proc/sys/kernel/random/boot_id) and its start time in clock ticks
// since boot (field 22 of /proc/self/stat); Dead says a pid and token are
// provably gone only when the token is of this namespace and boot and no
// process with that pid and start time runs. Anything else is kept: an
// owner of another namespace or boot, or a resource that names no token.
//
// Where /proc cannot be read (macOS, the BSDs), Token is "", and as those
// systems have no PID namespaces Dead falls back to the pid alone: an
// owner that recorded no token is dead once no process with its pid runs.
// Elsewhere (not Unix) Dead is never true: nothing is removed.
package owner
