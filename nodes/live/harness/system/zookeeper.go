//go:build linux

package system

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ZooKeeper is ZooKeeper 3.8 (Debian's zookeeper 3.8.0), run by the
// package's own start script in the foreground (which execs the JVM, so
// the member's process is the JVM itself). Its parameters are zoo.cfg's
// tickTime (ms), initLimit and syncLimit (ticks).
//
// Leadership is read from its log, not its admin server or four-letter
// words, for the reasons etcd's is (a poll misses what happens between
// two polls and a paused server answers nothing), and because the lines
// say exactly when a server's part in Zab changes:
//
//   - "LOOKING" (QuorumPeer): it starts FastLeaderElection, having no
//     leader. Its election rounds are not epochs (the epoch is chosen after
//     the vote, in Zab's discovery), so looking is a campaign that enters
//     no term (PreCandidate).
//   - "Have quorum of supporters, sids: [...]; starting up and setting
//     last processed zxid: 0x<epoch><counter>" (Leader): a quorum has
//     acknowledged its NEWLEADER, so it leads the epoch (the zxid's high
//     32 bits) and serves. "LEADING" alone is only the vote's outcome: a
//     leader that finds no quorum within initLimit goes back to looking.
//   - "Successfully connected to leader, using address: /A:P" (Learner),
//     then "Peer state changed: following - broadcast" (QuorumPeer): it
//     is synchronised with the leader at A:P (UPTODATE) and follows it.
//     The follower does not log the epoch, so its line names the leader
//     without a role (a term comes from the leader's line only).
var ZooKeeper = &Server{
	Name:         "zookeeper-server",
	Binary:       "/usr/share/zookeeper/bin/zkServer.sh",
	Package:      "zookeeper",
	ElectionPort: true,
	Args: func(_ *Spec, m Member) []string {
		return []string{"start-foreground", zkConfig(m)}
	},
	Env:     zkEnv,
	Prepare: zkPrepare,
	Listens: zkListens,
	Reader:  zkReader,
}

// zkListens reads the lines that open and close a server's quorum port,
// on which it listens only while it leads: the Leader binds it as it is
// made, before "LEADING - LEADER ELECTION TOOK", and closes it as it
// shuts down, before the server logs LOOKING again.
func zkListens(line []byte) (open, ok bool) {
	l := zkLine.FindSubmatch(line)
	switch {
	case l == nil:
		return false, false
	case string(l[2]) == "Leader" && bytes.HasPrefix(l[3], []byte("LEADING - LEADER ELECTION TOOK")):
		return true, true
	case string(l[2]) == "QuorumPeer" && string(l[3]) == "LOOKING":
		return false, true
	}
	return false, false
}

// zkClasspath is the server's jar (its manifest names the rest) and an
// SLF4J binding that logs to stderr: the package's own classpath has none,
// and its log4j configuration writes to /var/log (the system service's).
const zkClasspath = "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar"

func zkConfig(m Member) string { return filepath.Join(m.Dir, "zoo.cfg") }

// zkEnv runs the JVM with the classpath above (the script's -cp comes
// before JVMFLAGS, so the last wins), stamps lines to the millisecond in
// RFC 3339, keeps the JVM from writing /tmp/hsperfdata_<uid> (a leftover
// after a SIGKILL), holds its heap small for three JVMs on a small host,
// and turns JMX off (a port the member does not need).
func zkEnv(_ *Spec, _ Member) []string {
	return []string{
		"JMXDISABLE=true",
		"JVMFLAGS=-cp " + zkClasspath + " -XX:-UsePerfData -Xmx256m -XX:+UseSerialGC" +
			" -Dorg.slf4j.simpleLogger.showDateTime=true -Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
	}
}

// zkID is member m's server id (myid): ZooKeeper's ids start at 1.
func zkID(m Member) int { return m.Index + 1 }

// zkPrepare writes member m's zoo.cfg and myid into its data directory:
// every member on its own address, the admin server and the four-letter
// words off (nothing is read from them). A server binds the ports of its
// own server line and dials those of the others, so m's line names its
// own ports and the others' name their proxies' (Spec.Delays), when they
// have them.
func zkPrepare(c *Spec, m Member) error {
	var b strings.Builder
	fmt.Fprintf(&b, "tickTime=%d\ninitLimit=%d\nsyncLimit=%d\n", zkParam(c, "tick-time", 2000), zkParam(c, "init-limit", 10), zkParam(c, "sync-limit", 5))
	fmt.Fprintf(&b, "dataDir=%s\nclientPortAddress=%s\nclientPort=%d\n", m.Dir, m.Addr, m.ClientPort)
	b.WriteString("admin.enableServer=false\n4lw.commands.whitelist=\n")
	for _, o := range c.Members {
		quorum, election := o.PeerDial(), o.ElectionDial()
		if o.Index == m.Index {
			quorum, election = o.PeerPort, o.ElectionPort
		}
		fmt.Fprintf(&b, "server.%d=%s:%d:%d\n", zkID(o), o.Addr, quorum, election)
	}
	if err := os.WriteFile(zkConfig(m), []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("writing zoo.cfg: %w", err)
	}
	if err := os.WriteFile(filepath.Join(m.Dir, "myid"), []byte(strconv.Itoa(zkID(m))+"\n"), 0o644); err != nil {
		return fmt.Errorf("writing myid: %w", err)
	}
	return nil
}

// zkParam is parameter name of c, or def (the default nodes/servers
// registers) when unset: ZooKeeper has no default for tickTime, and in an
// ensemble none for initLimit and syncLimit.
func zkParam(c *Spec, name string, def int) int {
	if v, ok := c.Params[name]; ok {
		return v
	}
	return def
}

var (
	// SLF4J simple: "<time> [<thread>] <LEVEL> <logger> - <message>".
	zkLine      = regexp.MustCompile(`^(\S+) \[.*\] [A-Z]+ org\.apache\.zookeeper\.server\.quorum\.(\w+) - (.*)$`)
	zkSupported = regexp.MustCompile(`^Have quorum of supporters, sids: .*; starting up and setting last processed zxid: 0x([0-9a-f]+)$`)
	zkConnected = regexp.MustCompile(`^Successfully connected to leader, using address: \S*/([0-9.]+):(\d+)$`)
)

// zkReader reads member m's log: it keeps the leader the member connected
// to, which its "broadcast" line then follows, and the last epoch it led.
func zkReader(c *Spec, m int) func([]byte) (Observation, bool) {
	leader := NoLeader
	var epoch uint64
	return func(line []byte) (Observation, bool) {
		l := zkLine.FindSubmatch(line)
		if l == nil {
			return Observation{}, false
		}
		at, err := time.Parse(time.RFC3339Nano, string(l[1]))
		if err != nil {
			return Observation{}, false
		}
		o := Observation{At: at, Member: m, Leader: LeaderUnchanged, Term: epoch}
		class, msg := string(l[2]), string(l[3])
		switch {
		case class == "QuorumPeer" && msg == "LOOKING":
			o.Role, o.Leader, leader = PreCandidate, NoLeader, NoLeader
		case class == "Leader" && zkSupported.MatchString(msg):
			zxid, err := strconv.ParseUint(zkSupported.FindStringSubmatch(msg)[1], 16, 64)
			if err != nil {
				return Observation{}, false
			}
			epoch = zxid >> 32
			o.Role, o.Term, o.Leader = Leader, epoch, m
		case class == "Learner" && zkConnected.MatchString(msg):
			leader = zkMember(c, zkConnected.FindStringSubmatch(msg))
			return Observation{}, false
		case class == "QuorumPeer" && msg == "Peer state changed: following - broadcast" && leader >= 0:
			o.Leader = leader
		default:
			return Observation{}, false
		}
		return o, true
	}
}

// zkMember is the index of the member whose peer (quorum) address, or
// its proxy's, is addr[1]:addr[2], or NoLeader.
func zkMember(c *Spec, addr []string) int {
	a, err := netip.ParseAddr(addr[1])
	if err != nil {
		return NoLeader
	}
	port, _ := strconv.Atoi(addr[2])
	for _, o := range c.Members {
		if o.Addr == a && (o.PeerPort == port || o.PeerDial() == port) {
			return o.Index
		}
	}
	return NoLeader
}
