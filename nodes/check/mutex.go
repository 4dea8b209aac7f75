package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// Mutual-exclusion algorithms (nodes.Algorithm.Mutex: central, token-ring,
// ricart-agrawala, maekawa) are judged by their critical section, read off
// the phases their processes report (nodes.PhaseReleased, PhaseWanted,
// PhaseHeld), never off the algorithm's claims:
//
//   - safety: never two live processes in the section at once
//     (two-in-section, with the time and both processes);
//   - liveness: every request of a process alive at the end entered the
//     section by the deadline; one that did not is starved, or, when the
//     run came to rest with requests waiting, nobody crashed and no fault
//     struck (a cut link loses a token too), a deadlock (Maekawa's);
//   - ordering, where the algorithm promises it (Mutex.Ordered): no
//     request enters while one that happened before it (vector clocks
//     over the sends and deliveries the runtime reports) still waits
//     (out-of-order);
//   - correct: safe, live and, where promised, ordered.
//
// It also measures every entry: client delay (request → enter) and, when
// the process was already waiting as the section was last freed, the
// synchronization delay (that exit → this enter).

// Entry is one passage through the critical section.
type Entry struct {
	P         int
	Requested time.Duration
	Entered   time.Duration
	Exited    time.Duration // -1 while in the section
	// Sync is the time from the latest exit to this entry when the
	// process was already waiting at that exit; -1 otherwise.
	Sync time.Duration
}

// mutexWatch is the checker's state for a mutual-exclusion algorithm.
type mutexWatch struct {
	m         *nodes.Mutex
	requested []time.Duration // by position: the pending request's time; -1 if none
	inside    []int           // by position: index in entries while in the section; -1 if not
	entries   []Entry
	lastExit  time.Duration // -1 before the first exit
	faulted   bool          // a fault started (EvFault): waiting at rest is no longer a deadlock

	// Ordering (Mutex.Ordered): a vector clock per process, the clock each
	// message carried, and every request with its clock.
	vc       [][]int32
	carried  map[uint64][]int32
	reqs     []request
	pending  []int   // by position: index in reqs of the pending request; -1 if none
	boundary []int32 // by position: the process's own clock after its latest event
}

// request is a request as the ordering check sees it. A process's phase
// is reported after the event that changed it, once its sends are
// stamped; the request itself is that event's start, the first thing
// this process did after its previous event (own, its entry in the
// process's own clock). Its knowledge of the others (vc) is the same
// before and after its own sends.
type request struct {
	p   int
	own int32
	vc  []int32
}

// WatchMutex prepares the checker for a mutual-exclusion algorithm, before
// the run: it will then judge the trial by its critical section (above).
func (c *Checker) WatchMutex(a *nodes.Algorithm) error {
	if a.Mutex == nil {
		return fmt.Errorf("%s is not a mutual-exclusion algorithm", a.Name)
	}
	n := c.ranks.Len()
	w := &mutexWatch{m: a.Mutex, requested: make([]time.Duration, n), inside: make([]int, n), lastExit: -1}
	for p := range n {
		w.requested[p], w.inside[p] = -1, -1
	}
	if a.Mutex.Ordered {
		w.vc = make([][]int32, n)
		for p := range w.vc {
			w.vc[p] = make([]int32, n)
		}
		w.carried = map[uint64][]int32{}
		w.pending = make([]int, n)
		w.boundary = make([]int32, n)
		for p := range w.pending {
			w.pending[p] = -1
		}
	}
	c.mutex = w
	return nil
}

// mutexMessage advances the vector clocks: a send ticks the sender and
// stamps the message, a delivery merges the stamp into the receiver's.
func (c *Checker) mutexMessage(e *trial.Event) {
	w := c.mutex
	switch e.Kind {
	case trial.EvSend:
		v := w.vc[e.P]
		v[e.P]++
		w.carried[e.ID] = append([]int32(nil), v...)
	case trial.EvRecv:
		stamp, ok := w.carried[e.ID]
		if !ok {
			return
		}
		delete(w.carried, e.ID)
		v := w.vc[e.Q]
		for i, x := range stamp {
			v[i] = max(v[i], x)
		}
		v[e.Q]++
	}
}

// mutexPhase follows process p from one phase to the next. A process may
// pass through more than one step in one event (a request granted on the
// spot, an exit followed at once by a new request), so the steps are read
// off the pair of phases.
func (c *Checker) mutexPhase(at time.Duration, p int, old, phase string) {
	if old == "" {
		old = nodes.PhaseReleased
	}
	if w := c.mutex; w.vc != nil {
		defer func() { w.boundary[p] = w.vc[p][p] }()
	}
	if !c.alive[p] || old == phase {
		return
	}
	if old == nodes.PhaseHeld {
		c.mutexExit(at, p)
	}
	if phase != nodes.PhaseReleased && old != nodes.PhaseWanted {
		c.mutexRequest(at, p)
	}
	if phase == nodes.PhaseHeld {
		c.mutexEnter(at, p)
	}
}

func (c *Checker) mutexRequest(at time.Duration, p int) {
	w := c.mutex
	w.requested[p] = at
	if w.vc != nil {
		w.pending[p] = len(w.reqs)
		w.reqs = append(w.reqs, request{p: p, own: w.boundary[p] + 1, vc: append([]int32(nil), w.vc[p]...)})
	}
}

func (c *Checker) mutexEnter(at time.Duration, p int) {
	w := c.mutex
	for q, i := range w.inside {
		if i >= 0 && q != p && c.alive[q] {
			c.record(Violation{At: at, Kind: "two-in-section", Procs: []int{q, p},
				Detail: fmt.Sprintf("process %d entered the critical section while process %d was in it (since %v)", p, q, w.entries[i].Entered)})
		}
	}
	e := Entry{P: p, Requested: w.requested[p], Entered: at, Exited: -1, Sync: -1}
	if w.lastExit >= 0 && e.Requested <= w.lastExit {
		e.Sync = at - w.lastExit
	}
	w.inside[p] = len(w.entries)
	w.entries = append(w.entries, e)
	w.requested[p] = -1
	if w.vc != nil {
		c.mutexOrder(at, p)
	}
}

// mutexOrder checks that no request that happened before p's is still
// waiting as p's enters.
func (c *Checker) mutexOrder(at time.Duration, p int) {
	w := c.mutex
	if w.pending[p] < 0 {
		return
	}
	r := w.reqs[w.pending[p]]
	w.pending[p] = -1
	for q, i := range w.pending {
		if i < 0 || q == p || !c.alive[q] {
			continue
		}
		// q's request happened before p's: p knew of it when it asked.
		if r.vc[q] >= w.reqs[i].own {
			c.record(Violation{At: at, Kind: "out-of-order", Procs: []int{p, q},
				Detail: fmt.Sprintf("process %d entered the critical section before process %d, whose request happened before its own", p, q)})
		}
	}
}

func (c *Checker) mutexExit(at time.Duration, p int) {
	w := c.mutex
	if i := w.inside[p]; i >= 0 {
		w.entries[i].Exited = at
		w.inside[p] = -1
		w.lastExit = at
	}
}

// mutexCrashed forgets what a crashed process wanted or held: a crashed
// holder takes its grant or token with it, and its pending request is
// nobody's to serve.
func (c *Checker) mutexCrashed(p int) {
	w := c.mutex
	w.inside[p], w.requested[p] = -1, -1
	if w.pending != nil {
		w.pending[p] = -1
	}
}

// finishMutex judges a mutual-exclusion trial at its end.
func (c *Checker) finishMutex(decisions *trial.Decisions, quiescent bool, end time.Duration) Verdict {
	w := c.mutex
	v := Verdict{Mutex: true, Entries: w.entries}
	var waiting []int
	first := time.Duration(-1)
	for p, at := range w.requested {
		if at >= 0 && c.alive[p] {
			waiting = append(waiting, p)
			if first < 0 || at < first {
				first = at
			}
		}
	}
	v.Live = len(waiting) == 0
	switch {
	case v.Live:
	case quiescent && !slices.Contains(c.alive, false) && !w.faulted:
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "deadlock", Procs: waiting,
			Detail: fmt.Sprintf("processes %v wait for the critical section (since %v) and nothing is in flight", waiting, first)})
	default:
		v.Recorded = append(v.Recorded, Violation{At: end, Kind: "starved", Procs: waiting,
			Detail: fmt.Sprintf("processes %v requested the critical section (first at %v) and never entered it by the deadline", waiting, first)})
	}
	v.Recorded = append(c.list, v.Recorded...)
	v.Violations = c.count
	v.Correct = v.Live && c.count == 0
	// The coordinator every live process believes in (central), if they
	// agree: the leader column.
	a := c.agreement(decisions)
	v.DecidedAt = a.At
	if a.Agree && a.First >= 0 {
		v.Leader = a.Leader.String()
	}
	return v
}
