//go:build unix

package harness

import (
	"fmt"
	"time"

	"github.com/electbench/electbench/nodes/live/agent"
)

// cutHosts has the agent of host to drop, in its host, every packet from
// host from's address (agent.Cut), as netns cuts: nftables rules in the
// receiving host. It waits for the agent's Applied, so that the cut
// holds once the schedule notes it.
func (a *agents) cutHosts(from, to int) error {
	return a.cuts.cut(from, to, func() error { return a.hosts[to].cutFrom(agent.Cut, a.hosts[from].host) })
}

func (a *agents) healHosts(from, to int) error {
	return a.cuts.heal(from, to, func() error { return a.hosts[to].cutFrom(agent.Heal, a.hosts[from].host) })
}

// cutFrom asks h's agent to cut (agent.Cut) or heal (agent.Heal) the
// packets from the address from to its host's, and waits for its answer.
func (h *agentHost) cutFrom(kind agent.Kind, from string) error {
	what := "cut"
	if kind == agent.Heal {
		what = "heal"
	}
	h.mu.Lock()
	if h.err != nil {
		h.mu.Unlock()
		return h.err
	}
	h.last++
	id, answer := h.last, make(chan *agent.Msg, 1)
	h.waits[id] = answer
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.waits, id)
		h.mu.Unlock()
	}()
	if err := h.send(&agent.Msg{Kind: kind, ID: id, Addr: from, Args: []string{h.host}}); err != nil {
		return fmt.Errorf("%s %s -> %s: %w", what, from, h.host, err)
	}
	t := time.NewTimer(agentTimeout)
	defer t.Stop()
	select {
	case m := <-answer:
		if m.Kind == agent.Fail {
			return fmt.Errorf("%s: %s", h.name, m.Data)
		}
		return nil
	case <-h.done:
		return fmt.Errorf("%s: %s %s -> %s: %w", h.name, what, from, h.host, h.fault())
	case <-t.C:
		return fmt.Errorf("%s did not %s %s -> %s within %v", h.name, what, from, h.host, agentTimeout)
	}
}

// answerRequest hands the agent's Applied or Fail of a Cut or Heal to its
// waiter, and says whether m was one. A second answer to one request is
// not, and so is the agent's fault (deliver), as is any Applied of no
// request.
func (h *agentHost) answerRequest(m *agent.Msg) bool {
	if m.Kind != agent.Applied && m.Kind != agent.Fail {
		return false
	}
	h.mu.Lock()
	answer := h.waits[m.ID]
	h.mu.Unlock()
	select {
	case answer <- m: // a nil answer (no request) never takes it
		return true
	default:
		return false
	}
}
