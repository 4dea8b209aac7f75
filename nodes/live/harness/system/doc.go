// Package system runs unchanged server binaries (etcd and ZooKeeper as
// Debian ships them) as a cluster on loopback and reads their leadership from outside: the
// live-only, black-box "system" kind of algorithm (docs/SERVERS.md).
//
// A Server is a definition: the binary and the Debian package that has
// it, a configuration template (the arguments of member K of N: its own
// address 127.B.C.K, its ports, its data directory, the peer list; its
// environment and configuration files where it needs them) and a reader
// per member that turns the server's log lines into Observations (a
// member's role, term or epoch and leader, stamped by the server itself).
// ZooKeeper is a second definition (zookeeper.go); Cluster, which starts
// the members, applies faults and streams observations, is shared.
//
// Each member runs under a uid of its own, so that netcut can give the
// connections it dials its own source address (netcut.Pin) and rules
// between two members' addresses see every packet of their link; its data
// directory is that uid's. A member is killed with its process group, and
// by the kernel if electbench dies (Pdeathsig); Close kills what runs,
// deletes the data directories and the run's nftables table.
//
// With Spec.Delays, each member also gets an inbound Toxiproxy proxy in
// front of its peer port (and election port), on its own address, which
// it advertises in place of its own: every connection between two
// members crosses one proxy, which delays it both ways, and still runs
// between the two members' addresses, so the cuts still see it.
package system
