package nodes

import (
	"fmt"
	"regexp"
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
	class Class
	hdr   int // encoded size of the name and the field mask
}

// kinds and timers are written only by init functions (registration) and read
// afterwards, so they need no lock.
var (
	kinds      = []kindInfo{{name: "INVALID"}}
	kindByName = map[string]Kind{}
	timers     = []timerInfo{{name: "INVALID"}}
	timerByNm  = map[string]TimerID{}
	nameRE     = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,31}$`)
)

// RegisterKind returns the kind called name, registering it on first use.
// Names are upper-case identifiers of at most 32 characters. Registering one
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
	k := Kind(len(kinds))
	kinds = append(kinds, kindInfo{name: name, class: class, hdr: uvarintLen(uint64(len(name))) + len(name) + 1})
	kindByName[name] = k
	return k
}

// KindByName finds a registered kind.
func KindByName(name string) (Kind, bool) {
	k, ok := kindByName[name]
	return k, ok
}

// NumKinds is one more than the largest registered kind, so a runtime can
// count by kind in a slice indexed by Kind.
func NumKinds() int { return len(kinds) }

// String returns the kind's registered name.
func (k Kind) String() string {
	if int(k) >= len(kinds) {
		return fmt.Sprintf("Kind(%d)", uint16(k))
	}
	return kinds[k].name
}

// Valid reports whether k is a registered kind.
func (k Kind) Valid() bool { return k > 0 && int(k) < len(kinds) }

// IsElection reports whether messages of kind k are election messages.
func (k Kind) IsElection() bool { return k.Valid() && kinds[k].class == ElectionClass }

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
	t := TimerID(len(timers))
	timers = append(timers, timerInfo{name: name, class: class})
	timerByNm[name] = t
	return t
}

// IsElection reports whether expirations of timer t count in `timeouts`.
func (t TimerID) IsElection() bool {
	return t > 0 && int(t) < len(timers) && timers[t].class == ElectionClass
}

// NumTimers is one more than the largest registered timer.
func NumTimers() int { return len(timers) }

// String returns the timer's registered name.
func (t TimerID) String() string {
	if int(t) >= len(timers) {
		return fmt.Sprintf("Timer(%d)", uint16(t))
	}
	return timers[t].name
}
