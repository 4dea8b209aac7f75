package harness

import (
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/agent"
)

// TestAgentToxiReplies: an agent's reply to a Toxiproxy request reaches
// the request waiting for it; one to a request the harness gave up on
// (its deadline passed) is dropped; one to a request never made, or
// before any, is the agent's fault, named in the error.
func TestAgentToxiReplies(t *testing.T) {
	h := newAgentHost("the agent of host 0 (test)", "test", nil)
	if err := h.toxiReply(&agent.Msg{Kind: agent.ToxiReply, ID: 1}); err == nil || !strings.Contains(err.Error(), "the agent of host 0") {
		t.Errorf("a reply before any request: %v, want the agent's fault", err)
	}
	s := &agentServer{h: h, wait: map[uint32]chan *agent.Msg{}, last: 2}
	h.srv = s
	waiting := make(chan *agent.Msg, 1)
	s.wait[2] = waiting
	if err := h.toxiReply(&agent.Msg{Kind: agent.ToxiReply, ID: 1}); err != nil {
		t.Errorf("a late reply to request 1: %v, want it dropped", err)
	}
	if err := h.toxiReply(&agent.Msg{Kind: agent.ToxiReply, ID: 2, Code: 7}); err != nil {
		t.Fatal(err)
	}
	if m := <-waiting; m.Code != 7 {
		t.Errorf("request 2 got %+v", m)
	}
	if err := h.deliver(&agent.Msg{Kind: agent.ToxiReply, ID: 3}); err == nil || !strings.Contains(err.Error(), "never made") {
		t.Errorf("a reply to request 3, never made: %v, want the agent's fault", err)
	}
}

// TestServerLimitsOfHosts: a host's server whose agent reported a limit
// on open files below what the proxies into its nodes need refuses the
// cluster, naming the host; an unknown limit checks nothing. Bully at N
// = 7 on three hosts: host 2 holds nodes 5 and 6, twelve proxies, about
// 3·12 + 64 descriptors.
func TestServerLimitsOfHosts(t *testing.T) {
	limits := func(l2 uint64) func(int) (uint64, bool) {
		return func(h int) (uint64, bool) {
			if h == 2 {
				return l2, true
			}
			return 0, false
		}
	}
	err := checkServerLimits(7, nodes.Complete, true, 3, limits(99))
	if err == nil || !strings.Contains(err.Error(), "host 2 (12 proxies)") || !strings.Contains(err.Error(), "100 file descriptors") {
		t.Errorf("host 2 under a limit of 99: %v, want a refusal naming it", err)
	}
	if err := checkServerLimits(7, nodes.Complete, true, 3, limits(100)); err != nil {
		t.Errorf("host 2 under a limit of 100: %v", err)
	}
}
