package nodetest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
)

// EventKind says what an Event records.
type EventKind uint8

const (
	EvStart    EventKind = iota + 1 // P boots
	EvInitiate                      // P is asked to start an election
	EvSuspect                       // P's detector suspects Q
	EvSend                          // P sends Msg to Q
	EvRecv                          // Q handles Msg from P
	EvDrop                          // Msg from P to Q is lost; Note says why
	EvTimer                         // P's Timer expires
	EvDecide                        // P decides Leader
	EvPhase                         // P enters phase Note (nodes.Phased)
	EvCrash                         // P crashes
	EvRestart                       // P restarts as a fresh machine
	EvPause                         // P stops handling events
	EvResume                        // P handles what it missed
	EvCut                           // the groups in Note, or the link P→Q, lose messages
	EvHeal                          // every link works again
)

// Event is one thing that happened in a Net. For message events P is the
// sender and Q the receiver.
type Event struct {
	At     time.Duration
	Kind   EventKind
	P, Q   int
	Msg    nodes.Message // EvSend, EvRecv, EvDrop
	Timer  nodes.TimerID // EvTimer
	Leader nodes.Rank    // EvDecide
	Note   string        // EvDrop: why; EvPhase: the phase; EvCut: the groups
}

// String formats the event as in a transcript, without its time.
func (e Event) String() string {
	msg := func(verb string) string { return fmt.Sprintf("%s %d->%d %s", verb, e.P, e.Q, FormatMessage(e.Msg)) }
	switch e.Kind {
	case EvStart:
		return fmt.Sprintf("start p=%d", e.P)
	case EvInitiate:
		return fmt.Sprintf("initiate p=%d", e.P)
	case EvSuspect:
		return fmt.Sprintf("suspect p=%d q=%d", e.P, e.Q)
	case EvSend:
		return msg("send")
	case EvRecv:
		return msg("recv")
	case EvDrop:
		return msg("drop") + " " + e.Note
	case EvTimer:
		return fmt.Sprintf("timer p=%d %s", e.P, e.Timer)
	case EvDecide:
		return fmt.Sprintf("decide p=%d leader=%v", e.P, e.Leader)
	case EvPhase:
		return fmt.Sprintf("phase p=%d %s", e.P, e.Note)
	case EvCrash:
		return fmt.Sprintf("crash p=%d", e.P)
	case EvRestart:
		return fmt.Sprintf("restart p=%d", e.P)
	case EvPause:
		return fmt.Sprintf("pause p=%d", e.P)
	case EvResume:
		return fmt.Sprintf("resume p=%d", e.P)
	case EvCut:
		if e.Note != "" {
			return "cut " + e.Note
		}
		return fmt.Sprintf("cut %d->%d", e.P, e.Q)
	case EvHeal:
		return "heal"
	}
	return fmt.Sprintf("event(%d)", e.Kind)
}

// FormatMessage writes a message as its kind followed by its non-zero
// fields: ELECTION(r=5), VOTE(r=30 a=1 b=1), OK.
func FormatMessage(m nodes.Message) string {
	var fields []string
	if !m.Rank.IsZero() {
		fields = append(fields, "r="+m.Rank.String())
	}
	if !m.Aux.IsZero() {
		fields = append(fields, "aux="+m.Aux.String())
	}
	if m.A != 0 {
		fields = append(fields, "a="+strconv.FormatInt(m.A, 10))
	}
	if m.B != 0 {
		fields = append(fields, "b="+strconv.FormatInt(m.B, 10))
	}
	if len(fields) == 0 {
		return m.Kind.String()
	}
	return m.Kind.String() + "(" + strings.Join(fields, " ") + ")"
}

// Envelope is one message with its sender and receiver, by position.
type Envelope struct {
	From, To int
	Msg      nodes.Message
}

func (e Envelope) String() string {
	return fmt.Sprintf("%d->%d %s", e.From, e.To, FormatMessage(e.Msg))
}

// Transcript is the network's history, one event a line after a header
// naming the algorithm and the ranks by position: "t=3T send 0->1
// ELECTION(r=5)". Times are in units of T.
func (n *Net) Transcript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s/%s ranks", n.alg.Name, n.variant)
	for p := range n.procs {
		fmt.Fprintf(&b, " %v", n.Rank(p))
	}
	b.WriteByte('\n')
	for _, e := range n.log {
		fmt.Fprintf(&b, "t=%sT %v\n", strconv.FormatFloat(float64(e.At)/float64(n.unit), 'f', -1, 64), e)
	}
	return b.String()
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
