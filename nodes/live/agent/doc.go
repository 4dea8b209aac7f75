// Package agent is the per-host agent of a live run spread over several
// hosts (docs/multi-host.md) and the controller's side of its connection.
//
// An agent (Serve, behind `electbench agent`) accepts one controller at a
// time over TLS 1.3; each side presents a self-signed certificate made
// from its Ed25519 key and accepts only the other's pinned public key, so
// neither a certificate authority nor a first use is trusted. Over that
// connection runs a small framed protocol (frame.go): the controller
// (Dial, Client) asks the agent to start processes on its host, writes to
// their standard input and signals them (SIGKILL, SIGSTOP, SIGCONT only);
// the agent relays every line they print stamped with its own host's
// monotonic clock, and reports their exits. It also runs the host's
// Toxiproxy server (toxi.go), its unauthenticated API on the host's
// loopback, answering the controller's HTTP requests to it carried as
// frames over the same connection, and cuts its host off from another
// host's address in the kernel at the controller's request (Cut, Heal:
// nftables rules in its own network namespace, netcut), the controller's
// own connection exempt. When the controller's
// connection goes away and no controller returns within the grace period,
// the agent kills every process it started and removes its rules, so a
// dead controller leaves nothing running, and nothing cut, on any host.
package agent
