package quorum

import (
	"slices"
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

	// The watch tick pings the monitored process every period, election or
	// not: maintenance, counted by kind only. MONITOR is the watch's verdict
	// that the monitored process failed, PROPOSE_WAIT a proposal that found
	// no majority: both are the election's, counted in `timeouts`.
	timerWatchTick = nodes.RegisterTimer("WATCH_TICK", nodes.MaintenanceClass)
	timerMonitor   = nodes.RegisterTimer("MONITOR", nodes.ElectionClass)
	timerPropose   = nodes.RegisterTimer("PROPOSE_WAIT", nodes.ElectionClass)
)

var zookeeperParams = []nodes.Param{
	{Name: "watch-period", Default: "4T", Summary: "how often a process pings the one process it monitors (duration)"},
	{Name: "watch-timeout", Default: "10T", Summary: "silence after which the monitored process is taken for failed (duration)"},
	{Name: "propose-wait", Default: "5T", Summary: "a proposal waits a random time in [w, 2w] for a majority of ACKs before it is made again in a new epoch (duration)"},
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
		Quorum: &nodes.Quorum{Ballot: kindNewLeader, Grant: kindAck, Leader: kindCommit,
			// Every process pings the one it watches once a period.
			Steady: timing(zkTimingOf, func(tm *zkTiming, _ time.Duration) time.Duration { return tm.period }),
			Settle: timing(zkTimingOf, (*zkTiming).settle)},
	})
}

type zkTiming struct {
	period, timeout, proposeWait time.Duration
}

// settle is zookeeper's settling window (nodes.Quorum.Settle). A process
// pings the one it watches every period, and the answer re-arms its
// MONITOR at most period + 2D after the last, so MONITOR never expires when
// that is less than the watch timeout. The election timers are MONITOR
// (the timeout) and PROPOSE_WAIT (at most twice propose-wait).
func (tm *zkTiming) settle(d time.Duration) time.Duration {
	if tm.period+2*d >= tm.timeout {
		return 0
	}
	return max(tm.timeout, 2*tm.proposeWait) + tm.period + 2*d
}

func newZookeeper(cfg nodes.Config) (func() nodes.Machine, error) {
	tm, err := zkTimingOf(cfg)
	if err != nil {
		return nil, err
	}
	return func() nodes.Machine { return &zookeeper{zkTiming: tm} }, nil
}

func zkTimingOf(cfg nodes.Config) (*zkTiming, error) {
	if _, err := nodes.CheckVariant("zookeeper", cfg.Variant, "default"); err != nil {
		return nil, err
	}
	if err := nodes.CheckParams("zookeeper", cfg.Params, zookeeperParams); err != nil {
		return nil, err
	}
	tm := new(zkTiming)
	if err := durations(cfg, zookeeperParams, map[string]*time.Duration{
		"watch-period": &tm.period, "watch-timeout": &tm.timeout, "propose-wait": &tm.proposeWait,
	}); err != nil {
		return nil, err
	}
	return tm, nil
}

// zookeeper is one server of `zookeeper` (ALGORITHMS.md, "zookeeper"). Its
// sequence number is its index in rank order: the rank plays the join order,
// so the highest process is the first leader.
//
// Each process monitors only the next process up in rank order that it does
// not know to be down (the highest wraps round to the lowest, so that a
// leader below the top — possible after a wrong suspicion — is watched too,
// and the watches form one ring). Monitoring is its own WATCH pings answered
// by WATCH_ACK, the MONITOR timer reset by each answer, or the harness's
// failure detector about that one process; every other suspicion is merely
// remembered, so that a monitor moving on skips processes known to be down.
// A leader's crash therefore alerts one process, not all (no herd).
//
// The pings also carry the epoch and leader each side follows, and the side
// that is behind adopts the newer commit: a process that missed a COMMIT in
// a partition learns it from its neighbours once the partition heals.
type zookeeper struct {
	nodes.Group
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
	z.Init(env, "zookeeper")
	z.ackedFor = -1
	z.leader = z.N() - 1
	if z.Self == z.leader {
		z.propose(env) // the highest sequence number leads
	}
	z.watch(env, z.next(z.Self))
}

// Initiate makes this process propose itself now.
func (z *zookeeper) Initiate(env nodes.Env) {
	if !z.proposing && z.leader != z.Self {
		z.propose(env)
	}
}

// Suspect: the detector's verdict on the monitored process is the watch
// firing; any other is only remembered.
func (z *zookeeper) Suspect(env nodes.Env, p nodes.PeerID) {
	for i, q := range z.Peers {
		if q.ID != p || i == z.Self {
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
	case kindWatch, kindWatchAck:
		if m.Kind == kindWatch {
			env.Send(from, z.ping(kindWatchAck))
		} else if z.target >= 0 && z.Peers[z.target].ID == from {
			env.SetTimer(z.timeout, timerMonitor)
		}
		if z.down != nil { // only then can it matter: skip the scan
			if i := slices.IndexFunc(z.Peers, func(q nodes.Peer) bool { return q.ID == from }); i >= 0 {
				z.alive(env, i)
			}
		}
		z.gossip(env, m)
		return
	}
	i, ok := z.IndexOf(m.Rank, from)
	if !ok || i == z.Self {
		return // a message that lies about its sender
	}
	z.alive(env, i)
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
			env.Send(z.Peers[z.target].ID, z.ping(kindWatch))
			z.probe(env)
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
	return nodes.Message{Kind: k, Rank: z.Peers[z.Self].Rank, A: epoch}
}

// ping is a WATCH or WATCH_ACK with the commit this process follows.
func (z *zookeeper) ping(k nodes.Kind) nodes.Message {
	m := nodes.Message{Kind: k}
	if z.committed > 0 {
		m.Rank, m.A = z.Peers[z.leader].Rank, z.committed
	}
	return m
}

// gossip adopts a newer commit that a ping carries.
func (z *zookeeper) gossip(env nodes.Env, m nodes.Message) {
	if m.A <= z.committed {
		return
	}
	if l, ok := z.Find(m.Rank); ok {
		z.epoch = max(z.epoch, m.A)
		z.follow(env, l, m.A)
	}
}

// targetFailed: "if that process was the leader and fails, it proposes
// itself; if it was not the leader, the monitor moves to the next-higher
// live process and waits a timeout". After proposing, the process goes on
// watching the next one up, as every process does.
func (z *zookeeper) targetFailed(env nodes.Env) {
	was := z.target
	z.markDown(was)
	if was == z.leader {
		z.propose(env)
	}
	z.watch(env, z.next(was))
}

// next is the first process after i in rank order, wrapping round, that is
// neither this process nor known to be down. When every other process
// seems down, the suspicions are doubted instead — they may all be a
// partition's — and the monitor starts again from the next one up; a
// process alone in its cluster has nobody to watch (-1).
func (z *zookeeper) next(i int) int {
	for range 2 {
		for k := 1; k < z.N(); k++ {
			j := (i + k) % z.N()
			if j != z.Self && !z.isDown(j) {
				return j
			}
		}
		z.down, i = nil, z.Self
	}
	return -1
}

// probe pings the nearest process up the ring that is taken for down, if it
// is nearer than the one watched: a partition's suspicions are wrong once it
// heals, and its answer (alive) moves the monitor back. Its silence changes
// nothing: only the watched process's silence alerts.
func (z *zookeeper) probe(env nodes.Env) {
	if z.down == nil {
		return
	}
	for k := 1; k < z.N(); k++ {
		j := (z.Self + k) % z.N()
		if j == z.target {
			return
		}
		if z.isDown(j) {
			env.Send(z.Peers[j].ID, z.ping(kindWatch))
			return
		}
	}
}

// alive: a message from process i shows that a suspicion of it was wrong;
// if it is nearer up the ring than the process watched, watch it instead.
func (z *zookeeper) alive(env nodes.Env, i int) {
	if !z.isDown(i) {
		return
	}
	z.down[i/64] &^= 1 << (i % 64)
	up := func(j int) int { return (j - z.Self + z.N()) % z.N() }
	if z.target < 0 || up(i) < up(z.target) {
		z.watch(env, i)
	}
}

// watch monitors process i (none for -1): a ping now, the silence limit
// from now, and the ping period.
func (z *zookeeper) watch(env nodes.Env, i int) {
	z.target = i
	if i < 0 {
		env.CancelTimer(timerMonitor)
		env.CancelTimer(timerWatchTick)
		return
	}
	env.Send(z.Peers[i].ID, z.ping(kindWatch))
	env.SetTimer(z.timeout, timerMonitor)
	env.SetTimer(z.period, timerWatchTick)
}

// propose: NEW_LEADER to all in a new epoch, ACKing itself. Its wait is drawn
// from [propose-wait, 2·propose-wait], so that proposers who failed together
// do not try again in lockstep, splitting every epoch.
func (z *zookeeper) propose(env nodes.Env) {
	z.epoch = max(z.epoch, z.ackedEpoch) + 1
	z.proposing, z.proposal = true, z.epoch
	z.ackedEpoch, z.ackedFor = z.epoch, z.Self
	z.acks.Reset(z.N())
	z.acks.Record(z.Self, true)
	z.Broadcast(env, z.msg(kindNewLeader, z.epoch))
	env.SetTimer(uniform(env, z.proposeWait, 2*z.proposeWait), timerPropose)
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
		env.Send(z.Peers[i].ID, m)
	}
}

// commit: "on a majority of ACKs the leader sends COMMIT".
func (z *zookeeper) commit(env nodes.Env) {
	z.proposing = false
	env.CancelTimer(timerPropose)
	z.Broadcast(env, z.msg(kindCommit, z.proposal))
	z.adopt(env, z.Self, z.proposal)
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

// adopt makes process i the leader of epoch.
func (z *zookeeper) adopt(env nodes.Env, i int, epoch int64) {
	z.committed, z.leader = epoch, i
	if l := z.Peers[i].Rank; l != z.believed {
		z.believed = l
		env.Decide(l)
	}
}

func (z *zookeeper) markDown(i int) {
	if z.down == nil {
		z.down = make([]uint64, (z.N()+63)/64)
	}
	z.down[i/64] |= 1 << (i % 64)
}

func (z *zookeeper) isDown(i int) bool { return z.down != nil && z.down[i/64]&(1<<(i%64)) != 0 }
