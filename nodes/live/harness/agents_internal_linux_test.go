package harness

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/agent"
)

// TestAgentFramesOfUnknownProcesses: a frame an agent sends for a process
// number the harness never gave, or for one it has seen exit, a second
// Started, and an Applied of no Cut or Heal or a second one of a request
// (which once blocked the demultiplexer) are the agent's fault, named in
// the error; a request gets its Applied; the lines
// of a process it runs reach that process's reader with the agent's
// stamps.
func TestAgentFramesOfUnknownProcesses(t *testing.T) {
	cut := make(chan *agent.Msg, 1) // the answer to request 9, a Cut sent
	h := &agentHost{name: "the agent of host 0 (test)", procs: map[uint32]*remoteProc{}, waits: map[uint32]chan *agent.Msg{9: cut}}
	r := &remoteProc{h: h, id: 1, stderr: io.Discard, started: make(chan *agent.Msg, 1), exited: make(chan struct{})}
	r.out = newLineBuf()
	h.procs[r.id] = r
	lines := make(chan string, 4)
	var stamps []int64
	go func() {
		sc := bufio.NewScanner(r.out)
		for sc.Scan() {
			stamps = append(stamps, r.stamp())
			lines <- sc.Text()
		}
		close(lines)
	}()
	const hello = `{"type":"hello"}`
	for _, c := range []struct {
		m     agent.Msg
		fault string // "" for none
	}{
		{agent.Msg{Kind: agent.Started, ID: 1, Code: 42}, ""},
		{agent.Msg{Kind: agent.Line, ID: 1, Code: 1, At: 1234, Data: []byte(hello)}, ""},
		{agent.Msg{Kind: agent.Started, ID: 1}, "a second Started for process 1"},
		{agent.Msg{Kind: agent.Line, ID: 7, Code: 1, Data: []byte(hello)}, "for process 7, which the harness never started"},
		{agent.Msg{Kind: agent.Line, ID: 1, Code: 3, Data: []byte(hello)}, "from stream 3"},
		{agent.Msg{Kind: agent.Exited, ID: 1}, ""},
		{agent.Msg{Kind: agent.Line, ID: 1, Code: 1, Data: []byte(hello)}, "for process 1, which the harness never started or has seen exit"},
		{agent.Msg{Kind: agent.Applied, ID: 9}, ""},
		{agent.Msg{Kind: agent.Applied, ID: 9}, "for process 9"}, // a second answer
		{agent.Msg{Kind: agent.Applied, ID: 8}, "for process 8"}, // of no request
	} {
		err := h.deliver(&c.m)
		switch {
		case c.fault == "" && err != nil:
			t.Errorf("%+v: %v", c.m, err)
		case c.fault != "" && (err == nil || !strings.Contains(err.Error(), c.fault) || !strings.Contains(err.Error(), h.name)):
			t.Errorf("%+v: %v, want the fault of %s: %q", c.m, err, h.name, c.fault)
		}
	}
	if m := <-cut; m.Kind != agent.Applied {
		t.Errorf("request 9 got %+v, want its Applied", m)
	}
	if m := <-r.started; m.Code != 42 {
		t.Errorf("the starter got %+v, want the Started of pid 42", m)
	}
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	if len(got) != 1 || got[0] != hello || stamps[0] != 1234 {
		t.Errorf("the process's reader got %q stamped %v, want its one line %s stamped 1234 by the agent, and the end", got, stamps, hello)
	}
}

// TestAgentLineHoldsUpNothing: a process's line that no reader takes yet
// (its reader starts once every process of the trial has) holds up no
// frame behind it, such as the next process's Started.
func TestAgentLineHoldsUpNothing(t *testing.T) {
	h := &agentHost{name: "the agent of host 0 (test)", procs: map[uint32]*remoteProc{}}
	for id := range uint32(2) {
		h.procs[id+1] = &remoteProc{h: h, id: id + 1, out: newLineBuf(), started: make(chan *agent.Msg, 1), exited: make(chan struct{})}
	}
	done := make(chan error, 1)
	go func() {
		for _, m := range []*agent.Msg{
			{Kind: agent.Started, ID: 1},
			{Kind: agent.Line, ID: 1, Code: 1, Data: []byte(`{"type":"hello"}`)},
			{Kind: agent.Line, ID: 1, Code: 1, Data: []byte(`{"type":"hello"}`)},
			{Kind: agent.Started, ID: 2},
		} {
			if err := h.deliver(m); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("process 1's unread lines held up the Started of process 2")
	}
	if m := <-h.procs[2].started; m.ID != 2 {
		t.Errorf("process 2's starter got %+v", m)
	}
}
