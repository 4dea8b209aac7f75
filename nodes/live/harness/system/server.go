//go:build linux

package system

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"time"
)

// Server defines a kind of server the system algorithms run.
type Server struct {
	Name string // the algorithm's name: "etcd-server"
	// Binary is looked up on PATH ("etcd"), or is the absolute path the
	// package installs it at (ZooKeeper's start script is not on PATH).
	Binary  string
	Package string // the Debian package that installs Binary
	// ElectionPort says the server's peers also dial a member's
	// ElectionPort (ZooKeeper's), which then takes a proxy as PeerPort
	// does.
	ElectionPort bool
	// Args is the command line of member m of the cluster c.
	Args func(c *Spec, m Member) []string
	// Env, when set, is what member m's environment adds to electbench's.
	Env func(c *Spec, m Member) []string
	// Prepare, when set, writes what member m reads besides its command
	// line (a configuration file) into its data directory, before each
	// start.
	Prepare func(c *Spec, m Member) error
	// Listens, when set, reads a line of a member's log that says it
	// opened (true) or closed (false) its PeerPort, for a server that
	// listens there only at times (a ZooKeeper server, only while it
	// leads). The member's proxy (Spec.Delays) then accepts only while it
	// does: a peer that dials it otherwise is refused, as the member's own
	// port would refuse it, and retries, whereas a proxy that accepted and
	// then found no upstream would close a connection the peer took for
	// made (a ZooKeeper follower then gives its leader up, and the leader
	// waits initLimit for it).
	Listens func(line []byte) (open, ok bool)
	// Reader makes the reader of member m's log: it reads one line the
	// member logged, in order; ok is false for a line that says nothing
	// of leadership. A reader may keep what earlier lines said (a
	// ZooKeeper follower names its leader only as it connects to it).
	Reader func(c *Spec, m int) func(line []byte) (o Observation, ok bool)
}

// Spec is what a cluster is started with.
type Spec struct {
	N       int
	Variant string         // the server's variant: "default", "pre-vote"
	Params  map[string]int // the server's parameters, in its own units
	Members []Member       // filled by Start
	// Delays are, by member, what its inbound proxies add each way (see
	// Delay); nil, or all zero, runs no proxy: the peers dial the
	// members themselves.
	Delays []Delay
}

// Delay is what the proxies in front of a member's peer ports add to
// every byte they carry, each way: Latency ± Jitter (uniform, drawn by
// Toxiproxy, whole milliseconds). Each member advertises its proxies, so
// every connection between two members is dialed to one of them and
// crosses that one's proxy, and nothing else: a byte between two
// members is delayed once, by the delay of the member its connection was
// dialed to, whichever way it goes.
type Delay struct{ Latency, Jitter time.Duration }

// Member is one server's place in the cluster.
type Member struct {
	Index      int        // 0-based
	Addr       netip.Addr // its own loopback address
	PeerPort   int
	ClientPort int
	// ElectionPort is a third port, for a server whose election has a
	// port of its own (ZooKeeper's); etcd does not use it.
	ElectionPort int
	// PeerVia and ElectionVia are the ports, on its own address, of the
	// proxies its peers dial in place of PeerPort and ElectionPort; 0
	// when it has none.
	PeerVia, ElectionVia int
	Dir                  string // its data directory
	UID                  uint32 // the uid it runs as
}

// PeerDial is the port the member's peers dial to reach its PeerPort: its
// proxy's when it has one.
func (m Member) PeerDial() int { return cmp.Or(m.PeerVia, m.PeerPort) }

// ElectionDial is PeerDial for its ElectionPort.
func (m Member) ElectionDial() int { return cmp.Or(m.ElectionVia, m.ElectionPort) }

// Role is a member's state in the election, as the server names it.
type Role string

// Roles of a raft member (etcd) and of a ZooKeeper server, as logged.
const (
	Follower     Role = "follower"
	PreCandidate Role = "pre-candidate"
	Candidate    Role = "candidate"
	Leader       Role = "leader"
)

// Observation is what one log line says of its member's leadership.
type Observation struct {
	At     time.Time // the server's own timestamp
	Member int       // the index of the member that logged it
	// Role is the member's new role, or "" when the line names only its
	// leader.
	Role Role
	Term uint64
	// Leader is the index of the member it now follows, -1 when it has
	// none; unchanged (-2) when the line says nothing of it.
	Leader int
}

// NoLeader and LeaderUnchanged are Observation.Leader's special values.
const (
	NoLeader        = -1
	LeaderUnchanged = -2
)

// servers are the server definitions by algorithm name.
var servers = map[string]*Server{Etcd.Name: Etcd, ZooKeeper.Name: ZooKeeper}

// ByName is the definition of the server algorithm name, or nil.
func ByName(name string) *Server { return servers[name] }

// ErrMissing wraps the error of a server whose binary is not installed.
var ErrMissing = errors.New("server binary missing")

// Path finds the server's binary, or says which package installs it.
func (s *Server) Path() (string, error) {
	p, err := exec.LookPath(s.Binary)
	if err != nil {
		return "", fmt.Errorf("%w: %s needs %q on PATH: install Debian's %s (apt-get install %s, or scripts/setup-servers.sh)",
			ErrMissing, s.Name, s.Binary, s.Package, s.Package)
	}
	return p, nil
}
