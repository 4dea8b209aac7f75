package nodes

import (
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
)

// Kind names a message type: ELECTION, OK, COORDINATOR, PROBE, ... Kinds are
// registered globally by name, so the same name means the same kind in every
// algorithm and every count.
type Kind uint16

// Class separates election messages from maintenance traffic, and election
// timers from maintenance ticks. Turnaround ends with the last election
// message delivered; heartbeats and failure-detector pings are counted by kind
// but are not election messages (ALGORITHMS.md, "The reference model").
// Likewise a timer of the election (T1, T2, an election timeout, a lease
// expiry, a detector's suspicion) counts in `timeouts`; a maintenance tick (a
// heartbeat tick, a watch tick) only in `timeouts_by_kind`, so that a run's
// timeouts stay in the order of its election activity.
type Class uint8

const (
	ElectionClass    Class = iota // part of the election: counted in `messages`, `timeouts`
	MaintenanceClass              // heartbeats, pings, periodic ticks: counted by kind only
)

type timerInfo struct {
	name  string
	class Class
}

type kindInfo struct {
	name  string
	hdr   int // encoded size of the name and the field mask
	class Class
	// external marks a kind named by a program in another language
	// (ExternalKind): its messages carry a body the algorithm holds, whose
	// size is in Message.B.
	external bool
}

// The tables are indexed by the full range of Kind and TimerID, so that a
// lookup needs no bounds check and an entry never moves. Built-in kinds and
// timers are written by init functions (RegisterKind, RegisterTimer) before
// any goroutine runs (package variables' initialisers included, so the
// tables need no init function: entry 0 is INVALID by convention and the
// counts hold the number of entries after it). External ones (ExternalKind, ExternalTimer) are added
// while trials run, under regMu: an entry is written before the count that
// makes it valid is published, and whoever holds a Kind got it after that
// (from the registration, under regMu), so readers take no lock.
var (
	kinds      [1 << 16]kindInfo
	numKinds   atomic.Int32
	kindByName = map[string]Kind{} // built-in kinds; written only by init
	timers     [1 << 16]timerInfo
	numTimers  atomic.Int32
	extTimer   [1 << 16]bool          // timers registered by ExternalTimer
	timerByNm  = map[string]TimerID{} // built-in timers; written only by init
	nameRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,31}$`)

	regMu        sync.Mutex
	extKinds     = map[extKey]Kind{}
	extTimers    = map[string]TimerID{}
	externalRE   = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	errTableFull = fmt.Errorf("registry full (%d names)", 1<<16-1)
)

type extKey struct {
	name  string
	class Class
}

// RegisterKind returns the kind called name, registering it on first use.
// Names are identifiers of at most 32 characters starting with a letter:
// upper-case by convention (ELECTION), in another library's own spelling where
// an algorithm wraps one (etcd-raft's MsgVote). Registering one
// name with two different classes is a programming error and panics. Call it
// only from package initialisation.
func RegisterKind(name string, class Class) Kind {
	if !nameRE.MatchString(name) {
		panic(fmt.Sprintf("nodes: invalid message kind name %q", name))
	}
	if k, ok := kindByName[name]; ok {
		if kinds[k].class != class {
			panic(fmt.Sprintf("nodes: message kind %s registered with two classes", name))
		}
		return k
	}
	k, err := addKind(kindInfo{name: name, class: class, hdr: uvarintLen(uint64(len(name))) + len(name) + 1})
	if err != nil {
		panic("nodes: " + err.Error())
	}
	kindByName[name] = k
	return k
}

func addKind(info kindInfo) (Kind, error) {
	n := numKinds.Load() + 1
	if int(n) >= len(kinds) {
		return 0, fmt.Errorf("message kind %q: %w", info.name, errTableFull)
	}
	kinds[n] = info
	numKinds.Store(n)
	return Kind(n), nil
}

// ExternalKind returns the kind of the messages of type name that a program
// in another language sends (nodes/external, NODE-PROTOCOL.md), registering
// it on first use; it is safe to call while trials run. External kinds are a
// namespace of their own, apart from the built-in kinds of the same name and
// keyed by name and class, so a program can neither change a built-in kind's
// class nor be confused with the runtime's own traffic; counts by name
// (messages_by_kind) still add up under the one name. A message of an
// external kind carries a body its algorithm holds: Message.B is the body's
// size in bytes, which is what the message is charged, and the canonical
// codec does not encode it.
func ExternalKind(name string, class Class) (Kind, error) {
	if !externalRE.MatchString(name) {
		return 0, fmt.Errorf("message type %q is not 1 to 64 characters of A-Z a-z 0-9 _ -", cut(name))
	}
	regMu.Lock()
	defer regMu.Unlock()
	key := extKey{name, class}
	if k, ok := extKinds[key]; ok {
		return k, nil
	}
	k, err := addKind(kindInfo{name: name, class: class, external: true})
	if err != nil {
		return 0, err
	}
	extKinds[key] = k
	return k, nil
}

// cut shortens a name for an error message.
func cut(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// KindByName finds a registered built-in kind.
func KindByName(name string) (Kind, bool) {
	k, ok := kindByName[name]
	return k, ok
}

// NumKinds is one more than the largest registered kind, so a runtime can
// count by kind in a slice indexed by Kind. External kinds registered later
// make it grow: counters indexed by kind grow with it (trial.Record).
func NumKinds() int { return int(numKinds.Load()) + 1 }

// String returns the kind's registered name.
func (k Kind) String() string {
	if k == 0 {
		return "INVALID"
	}
	if !k.Valid() {
		return fmt.Sprintf("Kind(%d)", uint16(k))
	}
	return kinds[k].name
}

// Valid reports whether k is a registered kind.
func (k Kind) Valid() bool { return k > 0 && int32(k) <= numKinds.Load() }

// IsElection reports whether messages of kind k are election messages.
func (k Kind) IsElection() bool { return k.Valid() && kinds[k].class == ElectionClass }

// IsExternal reports whether k is the kind of a program in another language
// (ExternalKind), whose messages carry a body their algorithm holds.
func (k Kind) IsExternal() bool { return k.Valid() && kinds[k].external }

// TimerID names a timer: T1, T2, ELECTION_TIMEOUT, ... Like kinds, timers are
// registered globally by name, with a class, and counted by name when they
// fire.
type TimerID uint16

// RegisterTimer returns the timer called name, registering it on first use
// with its class: ElectionClass for a timer of the election (counted in
// `timeouts`), MaintenanceClass for a periodic tick (counted by kind only).
// Registering one name with two classes is a programming error and panics.
// Call it only from package initialisation.
func RegisterTimer(name string, class Class) TimerID {
	if !nameRE.MatchString(name) {
		panic(fmt.Sprintf("nodes: invalid timer name %q", name))
	}
	if t, ok := timerByNm[name]; ok {
		if timers[t].class != class {
			panic(fmt.Sprintf("nodes: timer %s registered with two classes", name))
		}
		return t
	}
	t, err := addTimer(name, class)
	if err != nil {
		panic("nodes: " + err.Error())
	}
	timerByNm[name] = t
	return t
}

func addTimer(name string, class Class) (TimerID, error) {
	n := numTimers.Load() + 1
	if int(n) >= len(timers) {
		return 0, fmt.Errorf("timer %q: %w", name, errTableFull)
	}
	timers[n] = timerInfo{name: name, class: class}
	numTimers.Store(n)
	return TimerID(n), nil
}

// ExternalTimer returns the timer a program in another language calls name,
// registering it on first use; it is safe to call while trials run. Like
// external kinds, external timers are a namespace of their own, counted by
// name with any built-in timer of the same name. Their expirations count
// in `timeouts`: the protocol has no way to say a timer is a maintenance
// tick.
func ExternalTimer(name string) (TimerID, error) {
	if !externalRE.MatchString(name) {
		return 0, fmt.Errorf("timer name %q is not 1 to 64 characters of A-Z a-z 0-9 _ -", cut(name))
	}
	regMu.Lock()
	defer regMu.Unlock()
	if t, ok := extTimers[name]; ok {
		return t, nil
	}
	t, err := addTimer(name, ElectionClass)
	if err != nil {
		return 0, err
	}
	extTimer[t] = true
	extTimers[name] = t
	return t, nil
}

// IsExternal reports whether t was registered by ExternalTimer.
func (t TimerID) IsExternal() bool { return int32(t) <= numTimers.Load() && extTimer[t] }

// NumTimers is one more than the largest registered timer; like NumKinds,
// it grows when external timers are registered.
func NumTimers() int { return int(numTimers.Load()) + 1 }

// IsElection reports whether expirations of timer t count in `timeouts`.
func (t TimerID) IsElection() bool {
	return t > 0 && int32(t) <= numTimers.Load() && timers[t].class == ElectionClass
}

// String returns the timer's registered name.
func (t TimerID) String() string {
	if t == 0 {
		return "INVALID"
	}
	if int32(t) > numTimers.Load() {
		return fmt.Sprintf("Timer(%d)", uint16(t))
	}
	return timers[t].name
}

// CountsByKind returns the non-zero counts of a slice indexed by Kind, by
// kind name: how both runtimes report what they counted (the trial record,
// a live node's stats).
func CountsByKind(counts []int64) map[string]int64 {
	return byName(counts, func(i int) string { return Kind(i).String() })
}

// CountsByTimer returns the non-zero counts of a slice indexed by TimerID,
// by timer name.
func CountsByTimer(counts []int64) map[string]int64 {
	return byName(counts, func(i int) string { return TimerID(i).String() })
}

func byName(counts []int64, name func(int) string) map[string]int64 {
	m := map[string]int64{}
	for i, n := range counts {
		if n != 0 {
			m[name(i)] += n
		}
	}
	return m
}
