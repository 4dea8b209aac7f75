package nodes

import (
	"fmt"
	"regexp"
)

// Kind names a message type: ELECTION, OK, COORDINATOR, PROBE, ... Kinds are
// registered globally by name, so the same name means the same kind in every
// algorithm and every count.
type Kind uint16

// Class separates election messages from maintenance traffic. Turnaround ends
// with the last election message delivered; heartbeats and failure-detector
// pings are counted by kind but are not election messages (ALGORITHMS.md, "The
// reference model").
type Class uint8

const (
	ElectionClass    Class = iota // part of the election: counted in `messages`
	MaintenanceClass              // heartbeats, pings: counted by kind only
)

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
	timers     = []string{"INVALID"}
	timerByNm  = map[string]TimerID{}
	nameRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,31}$`)
)

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
// registered globally by name and counted by name when they fire.
type TimerID uint16

// RegisterTimer returns the timer called name, registering it on first use.
// Call it only from package initialisation.
func RegisterTimer(name string) TimerID {
	if !nameRE.MatchString(name) {
		panic(fmt.Sprintf("nodes: invalid timer name %q", name))
	}
	if t, ok := timerByNm[name]; ok {
		return t
	}
	t := TimerID(len(timers))
	timers = append(timers, name)
	timerByNm[name] = t
	return t
}

// NumTimers is one more than the largest registered timer.
func NumTimers() int { return len(timers) }

// String returns the timer's registered name.
func (t TimerID) String() string {
	if int(t) >= len(timers) {
		return fmt.Sprintf("Timer(%d)", uint16(t))
	}
	return timers[t]
}
