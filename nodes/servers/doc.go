// Package servers registers the system kind of algorithm (docs/SERVERS.md):
// unchanged server binaries (etcd 3.4 and ZooKeeper 3.8 as Debian ships
// them) run as a cluster by the live harness
// (nodes/live/harness/system), their leadership read from outside. It registers each one's name, variants
// and parameters so that runs, scenarios and `electbench list` know them;
// the harness starts the servers, and nothing here runs inside a node.
//
// Import it for its side effect, as the other algorithm families are.
package servers
