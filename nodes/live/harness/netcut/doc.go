// Package netcut cuts links between loopback addresses in the kernel, with
// nftables over netlink (github.com/google/nftables; no nft binary needed).
//
// Servers run from outside (the live "system" algorithms) dial each peer at
// the one address the cluster configuration names, so a link cannot get a
// Toxiproxy of its own. Instead each member binds its own 127.0.0.K, and a
// Table — one nftables table per run, named after the run's process id so
// that RemoveDead finds what a killed run left — holds:
//
//   - a pin per member (Pin): its process runs under a uid of its own and
//     every packet it sends over loopback leaves from its own address
//     (source NAT on the uid), since the kernel would otherwise give every
//     connection dialed to 127.0.0.J the source 127.0.0.1, and a rule
//     between two addresses would miss half of each link's packets;
//   - rules on the input hook that drop what one address sends another
//     (Cut, one way; call it twice for both) or a random share of it
//     (Loss: numgen random mod 100 < p), removed again by Heal.
//
// Close deletes the table and with it every rule. OpenIn makes the same
// table inside another network namespace: a --netns host's, where its
// rules cut between hosts (the harness's host-partition) and go with the
// namespace; a host's agent (nodes/live/agent) makes its own with Open in
// the namespace it runs in, its first rule accepting its controller's
// connection whatever is cut (Exempt).
package netcut
