package mutex

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Timers of the request workload. They are the workload's, not the
// algorithm's: maintenance class, so they never count in `timeouts`.
var (
	timerHold    = nodes.RegisterTimer("CS_HOLD", nodes.MaintenanceClass)  // leave the section
	timerThink   = nodes.RegisterTimer("CS_THINK", nodes.MaintenanceClass) // request again
	timerStagger = nodes.RegisterTimer("CS_STAGGER", nodes.MaintenanceClass)
)

// workload is the request workload every process of a run shares
// (nodes.MutexWorkload): its initiators request `requests` times, one
// after another, each time holding the section for `hold`, waiting
// `think` after leaving before asking again; the first request of the
// process of rank order r comes r×stagger after it was told to request.
type workload struct {
	requests             int
	hold, think, stagger time.Duration
}

// maxRequests bounds the requests parameter: a run's events grow with it.
const maxRequests = 1 << 20

func newWorkload(cfg nodes.Config) (*workload, error) {
	w := &workload{requests: 1}
	if s, ok := cfg.Params["requests"]; ok {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxRequests {
			return nil, fmt.Errorf("parameter requests: %q is not a count from 0 to %d", s, maxRequests)
		}
		w.requests = n
	}
	for _, p := range []struct {
		d   *time.Duration
		def string
		key string
	}{{&w.hold, "1T", "hold"}, {&w.think, "0", "think"}, {&w.stagger, "0", "stagger"}} {
		d, err := cfg.Duration(p.key, p.def)
		if err != nil {
			return nil, err
		}
		if d < 0 {
			return nil, fmt.Errorf("parameter %s: must not be negative, got %v", p.key, d)
		}
		*p.d = d
	}
	return w, nil
}

// params are an algorithm's own parameters followed by the workload's.
func params(own ...nodes.Param) []nodes.Param {
	return append(own, nodes.MutexWorkload...)
}

// client is the requesting side every algorithm shares: it turns the
// workload into calls of the algorithm's want and leave, and keeps the
// phase the runtime reports. The algorithm calls enter when it may enter.
type client struct {
	w     *workload
	phase string
	left  int // requests still to make
	order int // rank order among all processes, for stagger; set by the algorithm at Start
	// want asks for the section (the phase is already Wanted); leave
	// gives it up (the phase is already Released).
	want, leave func(env nodes.Env)
}

// Phase is nodes.Phased.
func (c *client) Phase() string {
	if c.phase == "" {
		return nodes.PhaseReleased
	}
	return c.phase
}

// Initiate: the workload tells this process to request the section
// `requests` times. A process told again adds to what it has left.
func (c *client) Initiate(env nodes.Env) {
	if c.w.requests == 0 {
		return
	}
	idle := c.left == 0 && c.Phase() == nodes.PhaseReleased
	c.left += c.w.requests
	if !idle {
		return
	}
	if d := time.Duration(c.order) * c.w.stagger; d > 0 {
		env.SetTimer(d, timerStagger)
		return
	}
	c.request(env)
}

func (c *client) request(env nodes.Env) {
	if c.left == 0 || c.Phase() != nodes.PhaseReleased {
		return
	}
	c.left--
	c.phase = nodes.PhaseWanted
	c.want(env)
}

// enter is called by the algorithm when this process may enter.
func (c *client) enter(env nodes.Env) {
	if c.phase != nodes.PhaseWanted {
		panic("mutex: enter while " + c.Phase())
	}
	c.phase = nodes.PhaseHeld
	env.SetTimer(c.w.hold, timerHold)
}

// workloadTimeout handles the workload's timers; it reports whether t was
// one of them.
func (c *client) workloadTimeout(env nodes.Env, t nodes.TimerID) bool {
	switch t {
	case timerHold:
		if c.phase == nodes.PhaseHeld {
			c.phase = nodes.PhaseReleased
			c.leave(env)
			c.next(env)
		}
	case timerThink, timerStagger:
		c.request(env)
	default:
		return false
	}
	return true
}

// next schedules the next request after leaving.
func (c *client) next(env nodes.Env) {
	if c.left == 0 {
		return
	}
	// Even with no think time the next request is a separate event, so
	// that the runtime sees the process leave before it asks again (a
	// request granted on the spot would otherwise hide an exit and an
	// entry in one event).
	env.SetTimer(c.w.think, timerThink)
}

// selfIndex is the position of this process among peers (a complete
// topology's Peers, in ascending rank order): its rank order.
func selfIndex(env nodes.Env) int {
	self := env.Self()
	for i, p := range env.Peers() {
		if p.Rank == self {
			return i
		}
	}
	panic("mutex: a complete topology's peers do not include the process itself")
}

// peerIndex is the position of peer id among env.Peers(); -1 if absent.
func peerIndex(env nodes.Env, id nodes.PeerID) int {
	return slices.IndexFunc(env.Peers(), func(p nodes.Peer) bool { return p.ID == id })
}
