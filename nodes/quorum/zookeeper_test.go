package quorum

import (
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

func newLeader(epoch int64, p uint64) nodes.Message {
	return nodes.Message{Kind: kindNewLeader, Rank: rank(p), A: epoch}
}

func zkAck(epoch int64, p uint64) nodes.Message {
	return nodes.Message{Kind: kindAck, Rank: rank(p), A: epoch, B: 1}
}

func commit(epoch int64, l uint64) nodes.Message {
	return nodes.Message{Kind: kindCommit, Rank: rank(l), A: epoch}
}

func watch() nodes.Message    { return nodes.Message{Kind: kindWatch} }
func watchAck() nodes.Message { return nodes.Message{Kind: kindWatchAck} }

// following is a ping carrying the commit its sender follows.
func following(k nodes.Kind, epoch int64, l uint64) nodes.Message {
	return nodes.Message{Kind: k, Rank: rank(l), A: epoch}
}

// Defaults: watch-period 4T, watch-timeout 10T, propose-wait 5T.

// ALGORITHMS.md, "zookeeper": "the highest is leader. Each process monitors only
// its next-higher process" — the highest, with none above, the lowest.
func TestZookeeperStart(t *testing.T) {
	n := five(t, "zookeeper", nil)
	want := []envelope{send(0, 1, watch()), send(1, 2, watch()), send(2, 3, watch()), send(3, 4, watch())}
	want = append(want, toAll(4, 5, newLeader(1, 50))...)
	n.ExpectSent(append(want, send(4, 0, watch()))...)
	for p := range 5 {
		n.ExpectArmed(p, timerMonitor, 10*T)
		n.ExpectArmed(p, timerWatchTick, 4*T)
	}
	n.ExpectArmedWithin(4, timerPropose, 5*T, 10*T)
}

// ALGORITHMS.md, "zookeeper" on the wire: NEW_LEADER to all, ACK, COMMIT on a
// majority of ACKs, the leader recorded on COMMIT.
func TestZookeeperFirstElection(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.Take()
	n.RunUntil(3 * T)
	for p := range 5 {
		n.ExpectDecided(p, 50)
	}
	if sent := n.SentByKind(); sent["NEW_LEADER"] != 4 || sent["ACK"] != 4 || sent["COMMIT"] != 4 {
		t.Fatalf("sent %v, want 4 NEW_LEADER, 4 ACK, 4 COMMIT", sent)
	}
	n.ExpectArmed(4, timerPropose, nodetest.NotArmed)
	n.safe()
}

// The proposer's side: a majority of ACKs, itself included, commits.
func TestZookeeperCommitOnMajority(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.Take()
	top := 4
	n.Receive(top, 0, zkAck(1, 10))
	n.Receive(top, 0, zkAck(1, 10)) // counted once
	n.Receive(top, 1, zkAck(0, 20)) // another epoch
	n.ExpectSent()
	n.Receive(top, 2, zkAck(1, 30))
	n.ExpectSent(toAll(top, 5, commit(1, 50))...)
	n.ExpectDecided(top, 50)
	n.ExpectArmed(top, timerPropose, nodetest.NotArmed)
	n.Receive(top, 3, zkAck(1, 40))
	n.ExpectSent()
}

// ALGORITHMS.md, "zookeeper": "each process ACKs at most one leader per epoch".
func TestZookeeperOneAckPerEpoch(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.Take()
	n.Receive(me, 4, newLeader(1, 50))
	n.ExpectSent(send(me, 4, zkAck(1, 30)))
	n.Receive(me, 3, newLeader(1, 40))
	n.ExpectSent()
	n.Receive(me, 4, newLeader(1, 50)) // the same leader again: the same ACK
	n.ExpectSent(send(me, 4, zkAck(1, 30)))
	n.Receive(me, 3, newLeader(2, 40))
	n.ExpectSent(send(me, 3, zkAck(2, 30)))
	n.Receive(me, 4, newLeader(1, 50)) // an older epoch
	n.ExpectSent()
	n.ExpectDecided(me) // an ACK is no decision; COMMIT is
	n.Receive(me, 3, commit(2, 40))
	n.ExpectDecided(me, 40)
	n.Receive(me, 4, commit(1, 50)) // an older epoch's commit
	n.ExpectDecided(me, 40)
}

// The monitor: pings every period, an answer resets the silence limit,
// pings are answered; both carry the commit their sender follows.
func TestZookeeperWatch(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.Take()
	n.Jump(4 * T)
	n.Fire(me, timerWatchTick)
	n.ExpectSent(send(me, 3, watch()))
	n.ExpectArmed(me, timerWatchTick, 8*T)
	n.Jump(5 * T)
	n.Receive(me, 3, watchAck())
	n.ExpectArmed(me, timerMonitor, 15*T)
	n.Receive(me, 4, watchAck()) // not the process it watches
	n.ExpectArmed(me, timerMonitor, 15*T)
	n.Receive(me, 1, watch())
	n.ExpectSent(send(me, 1, watchAck()))
	n.Receive(me, 4, commit(1, 50))
	n.Receive(me, 1, watch())
	n.ExpectSent(send(me, 1, following(kindWatchAck, 1, 50)))
}

// A process that missed a COMMIT (a partition) learns it from a ping of a
// neighbour that follows a later epoch; an older one teaches nothing.
func TestZookeeperPingsCarryCommits(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.Take()
	n.Receive(me, 3, following(kindWatchAck, 4, 20))
	n.ExpectDecided(me, 20)
	n.Receive(me, 1, following(kindWatch, 3, 40))
	n.Take()
	n.ExpectDecided(me, 20)
	n.Receive(me, 1, following(kindWatch, 6, 99)) // nobody has rank 99
	n.Take()
	n.ExpectDecided(me, 20)
	n.Fire(me, timerWatchTick)
	n.ExpectSent(send(me, 3, following(kindWatch, 4, 20)))
}

// ALGORITHMS.md, "zookeeper": "if it was not the leader, the monitor moves to the
// next-higher live process and waits a timeout"; "if that process was the
// leader and fails, it proposes itself".
func TestZookeeperMonitorFires(t *testing.T) {
	t.Run("not the leader", func(t *testing.T) {
		n := five(t, "zookeeper", nil)
		n.RunUntil(3 * T)
		n.Take()
		n.Fire(me, timerMonitor) // 40 is silent
		n.ExpectSent(send(me, 4, following(kindWatch, 1, 50)))
		n.ExpectArmed(me, timerMonitor, 13*T)
		n.ExpectArmed(me, timerWatchTick, 7*T)
	})
	t.Run("the leader", func(t *testing.T) {
		n := five(t, "zookeeper", nil)
		n.RunUntil(3 * T)
		n.Take()
		n.Fire(3, timerMonitor) // 50, the leader, is silent
		want := toAll(3, 5, newLeader(2, 40))
		n.ExpectSent(append(want, send(3, 0, following(kindWatch, 1, 50)))...) // and it watches on, round the ring
		n.ExpectArmed(3, timerMonitor, 13*T)
		n.ExpectArmedWithin(3, timerPropose, 8*T, 13*T)
	})
	t.Run("suspicions of others are only remembered", func(t *testing.T) {
		n := five(t, "zookeeper", nil)
		n.RunUntil(3 * T)
		n.Take()
		n.Suspect(me, 4) // the leader, which this process does not watch
		n.ExpectSent()
		n.Suspect(me, 3) // the detector's verdict on its target is the watch firing
		n.ExpectSent(send(me, 0, following(kindWatch, 1, 50)))
	})
	t.Run("every other seems down", func(t *testing.T) {
		n := five(t, "zookeeper", nil)
		n.RunUntil(3 * T)
		n.Take()
		for _, q := range []int{4, 0, 1} {
			n.Suspect(me, q)
		}
		n.Suspect(me, 3) // nobody left: the suspicions are doubted, the ring starts again
		n.ExpectSent(send(me, 3, following(kindWatch, 1, 50)))
		n.ExpectArmed(me, timerMonitor, 13*T)
	})
}

// A suspected process is probed at every tick while it is nearer than the
// one watched; any message from it moves the monitor back to it.
func TestZookeeperDoubtsSuspicions(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.Take()
	n.Suspect(me, 3)
	n.ExpectSent(send(me, 4, watch()))
	n.Jump(4 * T)
	n.Fire(me, timerWatchTick)
	n.ExpectSent(send(me, 4, watch()), send(me, 3, watch()))
	n.Jump(5 * T)
	n.Receive(me, 3, watchAck())
	n.ExpectSent(send(me, 3, watch()))
	n.ExpectArmed(me, timerMonitor, 15*T)
	n.Jump(9 * T)
	n.Fire(me, timerWatchTick)
	n.ExpectSent(send(me, 3, watch())) // no probes left
}

// A proposal without a majority in time is made again in a new epoch; a
// proposer that ACKs a higher epoch defers to it, but proposes again if that
// one never commits.
func TestZookeeperProposalRetries(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.RunUntil(3 * T)
	n.Take()
	n.Fire(3, timerMonitor)
	n.Take()
	n.Fire(3, timerPropose)
	n.ExpectSent(toAll(3, 5, newLeader(3, 40))...)
	n.Receive(3, 1, newLeader(4, 20))
	n.ExpectSent(send(3, 1, zkAck(4, 40)))
	n.Receive(3, 0, zkAck(3, 10))
	n.Receive(3, 2, zkAck(3, 30)) // a majority for epoch 3, but it deferred to 4
	n.ExpectSent()
	n.Fire(3, timerPropose)
	n.ExpectSent(toAll(3, 5, newLeader(5, 40))...)
	n.Receive(3, 1, commit(4, 20)) // an older proposal committed after all
	n.ExpectDecided(3, 50, 20)
	n.Receive(3, 0, zkAck(5, 10))
	n.Receive(3, 2, zkAck(5, 30))
	n.ExpectSent(toAll(3, 5, commit(5, 40))...) // and its own, later, too
	n.ExpectDecided(3, 50, 20, 40)
}

func TestZookeeperDropsLies(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.Take()
	n.Receive(me, 0, newLeader(1, 20))
	n.Receive(me, 4, commit(1, 99))
	n.ExpectSent()
	n.ExpectDecided(me)
}

func TestZookeeperInitiate(t *testing.T) {
	n := five(t, "zookeeper", nil)
	n.RunUntil(3 * T)
	n.Take()
	n.Initiate(me)
	n.ExpectSent(toAll(me, 5, newLeader(2, 30))...)
	n.Initiate(me) // already proposing
	n.ExpectSent()
}

func TestZookeeperParams(t *testing.T) {
	alg, _, err := nodes.Lookup("zookeeper")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		params nodes.Params
		err    string
	}{
		{nodes.Params{"watch-period": "0s"}, "watch-period"},
		{nodes.Params{"watch-timeout": "x"}, "watch-timeout"},
		{nodes.Params{"session": "1s"}, "session"},
	} {
		if _, err := alg.New(nodes.Config{Params: tc.params, N: 5, T: T}); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want one naming %s", tc.params, err, tc.err)
		}
	}
}
