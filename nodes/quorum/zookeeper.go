package quorum

import (
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/quorum/tally"
)

// ZooKeeper's kinds (doc.go lists the fields each uses). ACK is the two-phase
// bully's kind by name; here it carries the epoch.
var (
	kindNewLeader = nodes.RegisterKind("NEW_LEADER", nodes.ElectionClass)
	kindAck       = nodes.RegisterKind("ACK", nodes.ElectionClass)
	kindCommit    = nodes.RegisterKind("COMMIT", nodes.ElectionClass)
	kindWatch     = nodes.RegisterKind("WATCH", nodes.MaintenanceClass)
	kindWatchAck  = nodes.RegisterKind("WATCH_ACK", nodes.MaintenanceClass)

	timerWatchTick = nodes.RegisterTimer("WATCH_TICK")
	timerMonitor   = nodes.RegisterTimer("MONITOR")
	timerPropose   = nodes.RegisterTimer("PROPOSE_WAIT")
)

var zookeeperParams = []nodes.Param{
	{Name: "watch-period", Default: "4T", Summary: "how often a process pings the one process it monitors (duration)"},
	{Name: "watch-timeout", Default: "10T", Summary: "silence after which the monitored process is taken for failed (duration)"},
	{Name: "propose-wait", Default: "5T", Summary: "how long a proposal waits for a majority of ACKs before it is made again in a new epoch (duration)"},
}

func init() {
	nodes.Register(nodes.Algorithm{
		Name:      "zookeeper",
		Family:    "quorum",
		Summary:   "ZooKeeper-style (Hunt et al. 2010): sequence ids, each process watches only the next higher, NEW_LEADER/ACK/COMMIT by majority",
		Topology:  nodes.Complete,
		StartsAll: true,
		Params:    zookeeperParams,
		New:       newZookeeper,
		Quorum:    &nodes.Quorum{Ballot: kindNewLeader, Grant: kindAck, Leader: kindCommit},
	})
}

type zkTiming struct {
	period, timeout, proposeWait time.Duration
}

func newZookeeper(cfg nodes.Config) (func() nodes.Machine, error) {
	if err := checkVariant("zookeeper", cfg.Variant); err != nil {
		return nil, err
	}
	if err := checkParams("zookeeper", cfg.Params, zookeeperParams); err != nil {
		return nil, err
	}
	tm := new(zkTiming)
	if err := durations(cfg, zookeeperParams, map[string]*time.Duration{
		"watch-period": &tm.period, "watch-timeout": &tm.timeout, "propose-wait": &tm.proposeWait,
	}); err != nil {
		return nil, err
	}
	return func() nodes.Machine { return &zookeeper{zkTiming: tm} }, nil
}

// zookeeper is one server of `zookeeper` (ALGORITHMS.md, "zookeeper"). Its
// sequence number is its index in rank order: the rank plays the join order,
// so the highest process is the first leader.
//
// Only the process right below a failed one hears of the failure, from its
// own monitor (WATCH pings answered by WATCH_ACK, the MONITOR timer reset by
// each answer) or from the harness's failure detector about the process it
// monitors; every other suspicion is merely remembered, so that a monitor
// moving up skips processes known to be down. A leader's crash therefore
// alerts one process, not all (no herd).
type zookeeper struct {
	group
	*zkTiming
	epoch      int64 // highest epoch seen
	ackedEpoch int64 // one ACK per epoch: the epoch of the latest ACK given
	ackedFor   int   // and to whom, by index
	committed  int64 // the epoch of the leader this process follows
	leader     int   // that leader's index; at first the highest, presumed
	believed   nodes.Rank
	target     int      // the process monitored; -1 for none
	down       []uint64 // processes known to have failed, by index; nil until the first
	proposing  bool     // a proposal of its own is open (or deferred to a higher one)
	proposal   int64    // its epoch
	acks       tally.Tally
}

func (z *zookeeper) Start(env nodes.Env) {
	z.start(env, "zookeeper")
	z.ackedFor = -1
	z.leader = z.n() - 1
	if z.self == z.leader {
		z.propose(env) // the highest sequence number leads
		return
	}
	z.watch(env, z.self+1)
	env.SetTimer(z.period, timerWatchTick)
}

// Initiate makes this process propose itself now.
func (z *zookeeper) Initiate(env nodes.Env) {
	if !z.proposing && z.leader != z.self {
		z.propose(env)
	}
}

// Suspect: the detector's verdict on the monitored process is the watch
// firing; any other is only remembered.
func (z *zookeeper) Suspect(env nodes.Env, p nodes.PeerID) {
	for i, q := range z.peers {
		if q.ID != p || i == z.self {
			continue
		}
		if i == z.target {
			z.targetFailed(env)
		} else {
			z.markDown(i)
		}
		return
	}
}

func (z *zookeeper) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindWatch:
		env.Send(from, nodes.Message{Kind: kindWatchAck})
		return
	case kindWatchAck:
		if z.target >= 0 && z.peers[z.target].ID == from {
			env.SetTimer(z.timeout, timerMonitor)
		}
		return
	}
	i, ok := z.indexOf(m.Rank, from)
	if !ok || i == z.self {
		return // a message that lies about its sender
	}
	z.epoch = max(z.epoch, m.A)
	switch m.Kind {
	case kindNewLeader:
		z.newLeader(env, i, m.A)
	case kindAck:
		if z.proposing && m.A == z.proposal && z.ackedEpoch == z.proposal {
			z.acks.Record(i, true)
			if z.acks.Result() == tally.Won {
				z.commit(env)
			}
		}
	case kindCommit:
		z.follow(env, i, m.A)
	}
}

func (z *zookeeper) Timeout(env nodes.Env, t nodes.TimerID) {
	switch t {
	case timerWatchTick:
		if z.target >= 0 {
			env.Send(z.peers[z.target].ID, nodes.Message{Kind: kindWatch})
			env.SetTimer(z.period, timerWatchTick)
		}
	case timerMonitor:
		if z.target >= 0 {
			z.targetFailed(env)
		}
	case timerPropose:
		// No majority in time (a split, a partition, crashed voters), or
		// the higher proposal this process deferred to never committed:
		// propose again in a new epoch. Liveness is not guaranteed.
		if z.proposing && z.committed < max(z.proposal, z.ackedEpoch) {
			z.propose(env)
		}
	}
}

func (z *zookeeper) msg(k nodes.Kind, epoch int64) nodes.Message {
	return nodes.Message{Kind: k, Rank: z.peers[z.self].Rank, A: epoch}
}

// targetFailed: "if that process was the leader and fails, it proposes
// itself; if it was not the leader, the monitor moves to the next-higher
// live process and waits a timeout" — and with nobody alive above, this
// process is the highest and proposes itself too.
func (z *zookeeper) targetFailed(env nodes.Env) {
	was := z.target
	z.markDown(was)
	if was != z.leader {
		for i := was + 1; i < z.n(); i++ {
			if !z.isDown(i) {
				z.watch(env, i)
				return
			}
		}
	}
	z.unwatch(env)
	z.propose(env)
}

// watch monitors process i: a ping now, the silence limit from now.
func (z *zookeeper) watch(env nodes.Env, i int) {
	z.target = i
	env.Send(z.peers[i].ID, nodes.Message{Kind: kindWatch})
	env.SetTimer(z.timeout, timerMonitor)
}

func (z *zookeeper) unwatch(env nodes.Env) {
	z.target = -1
	env.CancelTimer(timerMonitor)
	env.CancelTimer(timerWatchTick)
}

// propose: NEW_LEADER to all in a new epoch, ACKing itself.
func (z *zookeeper) propose(env nodes.Env) {
	z.epoch = max(z.epoch, z.ackedEpoch) + 1
	z.proposing, z.proposal = true, z.epoch
	z.ackedEpoch, z.ackedFor = z.epoch, z.self
	z.acks.Reset(z.n())
	z.acks.Record(z.self, true)
	z.broadcast(env, z.msg(kindNewLeader, z.epoch))
	env.SetTimer(z.proposeWait, timerPropose)
	if z.acks.Result() == tally.Won {
		z.commit(env)
	}
}

// newLeader: "each process ACKs at most one leader per epoch". A proposer
// that ACKs a higher epoch defers to it; its timer stays armed in case that
// proposal never commits.
func (z *zookeeper) newLeader(env nodes.Env, i int, epoch int64) {
	if epoch > z.ackedEpoch || epoch == z.ackedEpoch && z.ackedFor == i {
		z.ackedEpoch, z.ackedFor = epoch, i
		m := z.msg(kindAck, epoch)
		m.B = 1
		env.Send(z.peers[i].ID, m)
	}
}

// commit: "on a majority of ACKs the leader sends COMMIT".
func (z *zookeeper) commit(env nodes.Env) {
	z.proposing = false
	env.CancelTimer(timerPropose)
	z.broadcast(env, z.msg(kindCommit, z.proposal))
	z.adopt(env, z.self, z.proposal)
}

// follow: "a process records the leader on COMMIT", unless it already
// follows a later epoch.
func (z *zookeeper) follow(env nodes.Env, i int, epoch int64) {
	if epoch < z.committed {
		return
	}
	if z.proposing && epoch >= z.proposal {
		z.proposing = false
		env.CancelTimer(timerPropose)
	}
	z.adopt(env, i, epoch)
}

// adopt makes process i the leader of epoch and points the monitor at the
// next-higher process not known to be down (none for the leader itself).
func (z *zookeeper) adopt(env nodes.Env, i int, epoch int64) {
	z.committed, z.leader = epoch, i
	if l := z.peers[i].Rank; l != z.believed {
		z.believed = l
		env.Decide(l)
	}
	if i == z.self {
		z.unwatch(env)
		return
	}
	for j := z.self + 1; j < z.n(); j++ {
		if !z.isDown(j) {
			if j != z.target {
				z.watch(env, j)
				env.SetTimer(z.period, timerWatchTick)
			}
			return
		}
	}
	z.unwatch(env) // nobody alive above: the leader is below, watched by others
}

func (z *zookeeper) markDown(i int) {
	if z.down == nil {
		z.down = make([]uint64, (z.n()+63)/64)
	}
	z.down[i/64] |= 1 << (i % 64)
}

func (z *zookeeper) isDown(i int) bool { return z.down != nil && z.down[i/64]&(1<<(i%64)) != 0 }
