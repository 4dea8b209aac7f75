package bully

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// state is where a bully process stands in an election.
type state uint8

const (
	idle                state = iota // no election running: the coordinator is known
	electing                         // ELECTION sent to every higher process, T1 armed
	awaitingCoordinator              // an OK came: someone higher takes over; T2 armed
	halting                          // two-phase winner: HALT sent, collecting ACKs
	waiting                          // two-phase: halted by a winner, waiting for its COORDINATOR; T2 armed
)

// core holds the rules every bully variant shares (ALGORITHMS.md, "bully —
// Garcia-Molina 1982, as taught"); the variants differ in what a process does
// when it wins, which is won (nil: announce at once, as classic does).
type core struct {
	group
	*timing
	state state
	won   func(env nodes.Env)
	began time.Duration // when this process last started an election; -1 before the first
	// learned is when a COORDINATOR last told this process the leader; -1
	// before the first, and while this process is the coordinator itself.
	learned time.Duration
}

// running reports whether an election is under way at this process: from its
// start until the process learns or becomes the coordinator.
func (c *core) running() bool { return c.state != idle }

func (c *core) Start(env nodes.Env) {
	c.start(env)
	c.began, c.learned = -1, -1
}

// Initiate: "a process starts an election ... when the workload tells it to",
// unless one is already running. A request at the very instant this process
// started one is the same election, even if it was won on the spot: the
// initiator of a crash-at-start run is told to initiate at time 0, when its
// detector also reports the crash (TheoryInput), and the second-highest has
// then already announced (ALGORITHMS.md: "N−2 messages, turnaround 1T").
func (c *core) Initiate(env nodes.Env) {
	if !c.running() && env.Now() != c.began {
		c.elect(env)
	}
}

// Suspect: "a process starts an election when its failure detector suspects
// the leader". Suspecting anyone else only matters to the next election,
// which skips straight to winning when every higher process is suspected.
func (c *core) Suspect(env nodes.Env, p nodes.PeerID) {
	if i, newly := c.mark(p); newly {
		c.suspectedLeader(env, i)
	}
}

func (c *core) suspectedLeader(env nodes.Env, i int) {
	if c.Peers[i].Rank == c.leader && !c.running() {
		c.elect(env)
	}
}

func (c *core) Receive(env nodes.Env, from nodes.PeerID, m nodes.Message) {
	switch m.Kind {
	case kindElection:
		c.election(env, from)
	case kindOK:
		c.ok(env)
	case kindCoordinator:
		c.coordinator(env, m.Rank)
	}
}

func (c *core) Timeout(env nodes.Env, t nodes.TimerID) {
	switch {
	case t == timerT1 && c.state == electing:
		// "T1 expires with no OK → become leader."
		c.win(env)
	case t == timerT2 && (c.state == awaitingCoordinator || c.state == waiting):
		// "T2 expires with no COORDINATOR → start a new election." The
		// process that promised to take over (by OK or HALT) has gone quiet.
		c.elect(env)
	}
}

// win is what this process does when it wins: the variant's won, or
// announce.
func (c *core) win(env nodes.Env) {
	if c.won != nil {
		c.won(env)
		return
	}
	c.announce(env)
}

// elect starts an election: "if no process of higher id is unsuspected →
// become leader ... Otherwise send ELECTION to every process of higher id
// (suspected ones included) and arm timer T1."
func (c *core) elect(env nodes.Env) {
	c.began = env.Now()
	if !c.higherAlive() {
		c.win(env)
		return
	}
	c.state = electing
	env.CancelTimer(timerT2)
	m := nodes.Message{Kind: kindElection}
	for _, q := range c.higher() {
		env.Send(q.ID, m)
	}
	env.SetTimer(c.t1, timerT1)
}

// election answers an ELECTION, which only lower processes send: "reply OK;
// start an election unless one is already running". The highest process
// alive therefore announces itself again on every ELECTION that reaches it
// after an election has ended: it is the only way a lower process that missed
// the announcement, or started late, learns the coordinator.
//
// A process that a COORDINATOR taught the leader less than `settle` (2D, the
// longest round trip) ago starts nothing either (ALGORITHMS.md: "settling"):
// such an ELECTION may have been sent before its sender could receive the
// same announcement, which is on its way to the sender and ends its election
// as well. Starting one anyway is what makes the rule cascade under jitter:
// each late ELECTION sets off an election at every idle process above, and the
// highest re-announces to everyone each time, Θ(N⁴) messages in all. An
// ELECTION sent after its sender learned the leader also went to the leader,
// who answers it; if the leader is dead, the sender's T2 runs out and its next
// ELECTION, at least T2 (5D) later, finds this process settled no more.
func (c *core) election(env nodes.Env, from nodes.PeerID) {
	env.Send(from, nodes.Message{Kind: kindOK})
	if !c.running() && !c.settling(env.Now()) {
		c.elect(env)
	}
}

// settling reports whether a COORDINATOR taught this process the leader less
// than `settle` before now.
func (c *core) settling(now time.Duration) bool {
	return c.learned >= 0 && now-c.learned < c.settle
}

// ok: "an OK arrives → cancel T1, arm timer T2". Only the first OK of an
// election counts; later ones (and late ones after it ended) change nothing.
func (c *core) ok(env nodes.Env) {
	if c.state != electing {
		return
	}
	c.state = awaitingCoordinator
	env.CancelTimer(timerT1)
	env.SetTimer(c.t2, timerT2)
}

// coordinator: "on COORDINATOR(l): record l; cancel T1/T2". COORDINATOR only
// travels to lower processes, so l is always above this process and the
// Wikipedia rule of bullying a lower announcer never applies.
func (c *core) coordinator(env nodes.Env, l nodes.Rank) {
	c.state = idle
	c.leader = l
	c.learned = env.Now()
	env.CancelTimer(timerT1)
	env.CancelTimer(timerT2)
	env.Decide(l)
}

// announce makes this process the coordinator: it decides itself and sends
// COORDINATOR(self) to every lower process, suspected ones included (a send
// to a crashed process is still a message, and a suspicion may be wrong).
func (c *core) announce(env nodes.Env) {
	self := env.Self()
	c.state = idle
	c.leader = self
	c.learned = -1
	env.CancelTimer(timerT1)
	env.CancelTimer(timerT2)
	env.Decide(self)
	m := coordinator(self)
	for _, q := range c.lower() {
		env.Send(q.ID, m)
	}
}
