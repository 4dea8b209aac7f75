package nodetest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// Envelope is one message with its sender and receiver, by position.
type Envelope struct {
	From, To int
	Msg      nodes.Message
}

func (e Envelope) String() string {
	return fmt.Sprintf("%d->%d %s", e.From, e.To, trial.FormatMessage(e.Msg))
}

// Transcript is the network's history as a trial.Transcript: one event a
// line after a header naming the algorithm and the ranks by position,
// "t=3T send 0->1 ELECTION(r=5)", times in units of T.
func (n *Net) Transcript() string {
	ranks := make([]nodes.Rank, len(n.procs))
	for p := range ranks {
		ranks[p] = n.Rank(p)
	}
	tr := trial.NewTranscript(n.alg.Name, n.variant, n.params, ranks, n.unit)
	for i := range n.log {
		tr.Event(&n.log[i])
	}
	return tr.String()
}

// Golden compares the transcript with testdata/<name>.txt (see Golden).
func (n *Net) Golden(name string) {
	n.t.Helper()
	Golden(n.t, name, n.Transcript())
}

// ExpectSent fails the test unless exactly want was sent since the last
// Take, in order.
func (n *Net) ExpectSent(want ...Envelope) {
	n.t.Helper()
	if got := n.Take(); !slices.Equal(got, want) {
		n.t.Fatalf("sent %v, want %v", got, want)
	}
}

// ExpectDecided fails the test unless p's decisions so far are exactly the
// small identities want, in order.
func (n *Net) ExpectDecided(p int, want ...uint64) {
	n.t.Helper()
	if got := n.Decided(p); !slices.Equal(got, Ranks(want...)) {
		n.t.Fatalf("process %d decided %v, want %v", p, got, want)
	}
}

// ExpectArmed fails the test unless p's timer tm expires at at, or is not
// armed when at is NotArmed.
func (n *Net) ExpectArmed(p int, tm nodes.TimerID, at time.Duration) {
	n.t.Helper()
	got, ok := n.Armed(p, tm)
	if !ok {
		got = NotArmed
	}
	if got != at {
		n.t.Fatalf("process %d: timer %s expires at %v, want %v (-1: not armed)", p, tm, got, at)
	}
}

// ExpectArmedWithin fails the test unless p's timer tm is armed to expire
// within [lo, hi].
func (n *Net) ExpectArmedWithin(p int, tm nodes.TimerID, lo, hi time.Duration) {
	n.t.Helper()
	if got, ok := n.Armed(p, tm); !ok || got < lo || got > hi {
		n.t.Fatalf("process %d: timer %s expires at %v (armed: %v), want within [%v, %v]", p, tm, got, ok, lo, hi)
	}
}

func formatGroups(groups [][]int) string {
	var gs []string
	for _, g := range groups {
		var ps []string
		for _, p := range g {
			ps = append(ps, strconv.Itoa(p))
		}
		gs = append(gs, strings.Join(ps, ","))
	}
	return strings.Join(gs, "|")
}
