package trial

import (
	"time"

	"github.com/electbench/electbench/nodes"
)

// EventKind names one kind of event of the stream both runtimes emit. Its
// String is the "ev" field of a trace line.
type EventKind uint8

const (
	EvStart    EventKind = iota + 1 // P boots
	EvInitiate                      // P is told to initiate
	EvSend                          // P sends Msg to Q (every send, counted once)
	EvRecv                          // Msg from P is handed to Q's machine
	EvDrop                          // Msg from P reaches Q, which has crashed
	EvDup                           // a fault sends an extra copy of Msg from P to Q
	EvLose                          // a fault loses Msg from P to Q
	EvTimer                         // P's timer Timer expires
	EvSuspect                       // P's detector suspects Q
	EvDecide                        // P decides Leader
	EvPhase                         // P, a nodes.Phased machine, is in Phase after an event
	EvCrash                         // P crashes
	EvRestart                       // P restarts as a fresh machine with the same rank
	EvPause                         // P is paused
	EvResume                        // P resumes
	EvFault                         // a fault starts or heals: What
	EvNote                          // P notes What (an external program's log line)
	// EvArm: P arms its timer Timer to expire ID nanoseconds later. Only a
	// sink that names it (Selective) gets it: AllKinds leaves it out, so
	// that no trace shows it and no trace hash changed by it. The fault
	// story reads it for the length of the timer that expired
	// (electbench shrink).
	EvArm
	numEventKinds
)

var eventNames = [...]string{"", "start", "initiate", "send", "recv", "drop", "dup", "lose", "timer",
	"suspect", "decide", "phase", "crash", "restart", "pause", "resume", "fault", "note", "arm"}

func (k EventKind) String() string {
	if k > 0 && k < numEventKinds {
		return eventNames[k]
	}
	return "event?"
}

// EventKindByName is the kind whose String is name.
func EventKindByName(name string) (EventKind, bool) {
	for k := EventKind(1); k < numEventKinds; k++ {
		if eventNames[k] == name {
			return k, true
		}
	}
	return 0, false
}

// IsMessage reports whether events of kind k carry a message from P to Q.
func (k EventKind) IsMessage() bool { return k >= EvSend && k <= EvLose }

// Event is one event of a trial. Processes are named by position. Message
// events name the sender P and the receiver Q, and ID pairs a send with
// its delivery; EvSuspect names the observer P and the suspected Q.
type Event struct {
	At     time.Duration
	Kind   EventKind
	P, Q   int32
	ID     uint64
	Msg    nodes.Message
	Timer  nodes.TimerID
	Leader nodes.Rank
	Phase  string
	What   string // EvFault: "crash(3)", "partition(halves)[0,1|2,3]", "heal latency"; EvNote: the text
}

// Kinds is a set of event kinds.
type Kinds uint32

// KindsOf is the set of the given kinds.
func KindsOf(ks ...EventKind) Kinds {
	var s Kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

// AllKinds is every kind of event but EvArm, which only a sink that names
// it gets.
const AllKinds Kinds = (1<<numEventKinds - 2) &^ (1 << EvArm)

// Has reports whether k is in the set.
func (s Kinds) Has(k EventKind) bool { return s&(1<<k) != 0 }

// Sink receives a trial's events in the order they happen. A runtime never
// builds an event nobody listens to: the simulator's hot path pays nothing
// for a nil sink. The event is valid only during the call (the simulator
// reuses one): a sink that keeps it keeps a copy, and none writes it (the
// simulator leaves a message event's other fields zero once, not at each
// send).
type Sink interface {
	Event(e *Event)
}

// Selective is implemented by sinks that want only some kinds of event; a
// runtime emits the others to nobody. A sink that does not implement it
// gets every kind.
type Selective interface {
	Kinds() Kinds
}

// DecisionSink is implemented by sinks that take a decision through a call
// of its own: a ring of ten million processes decides ten million times,
// and building an Event (over 200 bytes) for each costs more than what
// the sink does with it. A runtime that finds it calls
// EventDecide(at, p, leader) for every decision the sink wants, instead of
// Event with {At: at, Kind: EvDecide, P: p, Leader: *leader}, which it
// means exactly. The sink must not keep the pointer.
type DecisionSink interface {
	Sink
	EventDecide(at time.Duration, p int32, leader *nodes.Rank)
}

// LogSink is implemented by sinks that read the last log index of the
// processes whose machines hold a log (nodes.LogHolder): the simulator
// calls LastIndex(p, i) after each Start of process p whose machine holds
// one. It is not an event, so a trace never shows it.
type LogSink interface {
	LastIndex(p int32, index int64)
}

// RankReader is implemented by sinks that say whether they read a
// message's ranks (Msg.Rank, Msg.Aux) or only its kind and counters. A
// runtime that pays to learn the ranks (live nodes must report them) fills
// them only for a sink that reads them or does not say.
type RankReader interface {
	ReadsRanks() bool
}

// ReadsRanks reports whether s may read the ranks of the messages it gets.
func ReadsRanks(s Sink) bool {
	if r, ok := s.(RankReader); ok {
		return r.ReadsRanks()
	}
	return s != nil
}

// KindsOfSink is the set of kinds s wants; none for a nil sink.
func KindsOfSink(s Sink) Kinds {
	switch s := s.(type) {
	case nil:
		return 0
	case Selective:
		return s.Kinds()
	}
	return AllKinds
}

// SendFilter is implemented by sinks that want the EvSend events of some
// message kinds only (a checker counting bully's elections wants its
// ELECTION sends, not its OK and COORDINATOR ones): a runtime may leave
// the others out, as emitting an event per send costs a bully run a tenth
// of its time. A sink that does not implement it wants every send.
type SendFilter interface {
	WantsSend(k nodes.Kind) bool
}

// WantsSend reports whether sink s wants the EvSend events of messages of
// kind k.
func WantsSend(s Sink, k nodes.Kind) bool {
	if !KindsOfSink(s).Has(EvSend) {
		return false
	}
	if f, ok := s.(SendFilter); ok {
		return f.WantsSend(k)
	}
	return true
}

// Tee sends every event to each non-nil sink that wants its kind, in the
// order given. It returns nil when no sink is given.
func Tee(sinks ...Sink) Sink {
	// One sink or none is the common case (a trial's checker alone): told
	// apart before anything is allocated (issue 42).
	var only Sink
	count := 0
	for _, s := range sinks {
		if s != nil {
			only = s
			count++
		}
	}
	if count <= 1 {
		return only
	}
	var t tee
	for _, s := range sinks {
		if s != nil {
			t.sinks = append(t.sinks, s)
			t.kinds = append(t.kinds, KindsOfSink(s))
			t.all |= KindsOfSink(s)
		}
	}
	return &t
}

type tee struct {
	sinks []Sink
	kinds []Kinds
	all   Kinds
}

func (t *tee) Kinds() Kinds { return t.all }

// WantsSend makes a tee a SendFilter: it wants a send that one of its
// sinks wants.
func (t *tee) WantsSend(k nodes.Kind) bool {
	for _, s := range t.sinks {
		if WantsSend(s, k) {
			return true
		}
	}
	return false
}

// LastIndex makes a tee a LogSink: each of its sinks that is one is told.
func (t *tee) LastIndex(p int32, index int64) {
	for _, s := range t.sinks {
		if l, ok := s.(LogSink); ok {
			l.LastIndex(p, index)
		}
	}
}

func (t *tee) Event(e *Event) {
	for i, s := range t.sinks {
		if t.kinds[i].Has(e.Kind) {
			s.Event(e)
		}
	}
}

// Setup is what a runtime settled about a trial once it was set up, where
// that may differ from its Config.
type Setup struct {
	// Ranks are the ranks the processes run with, by position. Live nodes
	// mint their own identities, handed out to positions in the order of
	// Config.Ranks, which then only orders them.
	Ranks nodes.Ranks
	// Unit is the T that algorithm parameters ("T1 = 2T") are read in:
	// Config.T() on the simulator; live, T plus the harness's allowance
	// for processing.
	Unit time.Duration
}

// SetupSink is implemented by sinks that must know the trial's Setup
// before its first event, such as a checker, which needs the ranks that
// run. The live harness calls Setup once its cluster is up; the simulator
// runs Config as it is and does not.
type SetupSink interface {
	Sink
	Setup(s Setup)
}
