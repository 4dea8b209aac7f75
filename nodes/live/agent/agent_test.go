package agent

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// logLines is an agent's log, for tests that wait for what it says.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{}
}

func newLog() *logLines { return &logLines{ch: make(chan struct{}, 1)} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	select {
	case l.ch <- struct{}{}:
	default:
	}
	return len(p), nil
}

// waitFor waits until the log holds s, or fails t.
func (l *logLines) waitFor(t *testing.T, s string) string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		got := l.buf.String()
		l.mu.Unlock()
		if strings.Contains(got, s) {
			return got
		}
		select {
		case <-l.ch:
		case <-deadline:
			t.Fatalf("agent's log never said %q; it said:\n%s", s, got)
		}
	}
}

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

func pub(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

// testAgent is an agent serving on loopback for one test.
type testAgent struct {
	addr string
	key  ed25519.PrivateKey
	log  *logLines
}

func startAgent(t *testing.T, controller ed25519.PublicKey, grace time.Duration) *testAgent {
	t.Helper()
	ta := &testAgent{key: newKey(t), log: newLog()}
	a, err := New(Options{Key: ta.key, Controller: controller, Grace: grace, Version: "test", Log: ta.log, Toxiproxy: []string{os.Args[0], "toxiproxy-server"}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ta.addr = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ta
}

func dial(t *testing.T, ta *testAgent, ctl ed25519.PrivateKey) *Client {
	t.Helper()
	c, err := Dial(context.Background(), ta.addr, ctl, pub(ta.key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// next returns the agent's next frame, failing t if none comes.
func next(t *testing.T, c *Client) *Msg {
	t.Helper()
	select {
	case m, ok := <-c.Msgs():
		if !ok {
			t.Fatalf("connection ended: %v", c.Err())
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("no frame from the agent in 10 s")
	}
	return nil
}

func TestAgentRefusesUnknownController(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), time.Second)
	stranger := newKey(t)
	_, err := Dial(context.Background(), ta.addr, stranger, pub(ta.key))
	if err == nil || !strings.Contains(err.Error(), "refused this controller") {
		t.Fatalf("Dial with an unpinned controller key: %v, want a refusal", err)
	}
	ta.log.waitFor(t, "the controller's key "+hex.EncodeToString(pub(stranger))+" is not the pinned "+hex.EncodeToString(pub(ctl)))
	// The pinned controller is still welcome.
	dial(t, ta, ctl)
}

func TestControllerRefusesUnknownAgent(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), time.Second)
	want := pub(newKey(t))
	_, err := Dial(context.Background(), ta.addr, ctl, want)
	if !errors.Is(err, ErrUnpinnedKey) || !strings.Contains(err.Error(), "the agent's key "+hex.EncodeToString(pub(ta.key))+" is not the pinned "+hex.EncodeToString(want)) {
		t.Fatalf("Dial to an agent with an unpinned key: %v, want ErrUnpinnedKey naming the agent's key", err)
	}
}

func TestAgentRefusesSecondController(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), time.Second)
	dial(t, ta, ctl)
	_, err := Dial(context.Background(), ta.addr, ctl, pub(ta.key))
	if err == nil || !strings.Contains(err.Error(), "already connected") {
		t.Fatalf("a second controller: %v, want a refusal", err)
	}
}

func TestAgentRunsAProcess(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), time.Second)
	c := dial(t, ta, ctl)
	script := `echo "hello $FOO $*"; echo oops >&2; read x; echo "got $x"; exit 3`
	before := now()
	if err := c.Send(&Msg{Kind: Start, ID: 7, Args: []string{"sh", "-c", script, "sh"}, Env: []string{"FOO=bar"}, Addr: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	m := next(t, c)
	if m.Kind != Started || m.ID != 7 || m.Code <= 0 || m.At < before {
		t.Fatalf("first frame %+v, want Started of process 7 with its pid, stamped after %d", m, before)
	}
	// The socket the agent made for it listens (the kernel completes a
	// connection to a listening socket before anyone accepts it).
	conn, err := net.Dial("tcp", m.Addr)
	if err != nil {
		t.Fatalf("dialling the process's socket %q: %v", m.Addr, err)
	}
	conn.Close()
	lines := map[int32][]string{}
	for len(lines[1]) < 1 || len(lines[2]) < 1 {
		m := next(t, c)
		if m.Kind != Line || m.ID != 7 {
			t.Fatalf("frame %+v, want a line of process 7", m)
		}
		lines[m.Code] = append(lines[m.Code], string(m.Data))
	}
	if got := lines[1][0]; got != "hello bar --listen-fd 3" {
		t.Errorf("stdout %q, want its environment and the socket's descriptor", got)
	}
	if got := lines[2][0]; got != "oops" {
		t.Errorf("stderr %q, want oops", got)
	}
	if err := c.Send(&Msg{Kind: Stdin, ID: 7, Data: []byte("world\n")}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, c); m.Kind != Line || string(m.Data) != "got world" {
		t.Fatalf("frame %+v, want the line it read from stdin", m)
	}
	if m := next(t, c); m.Kind != Exited || m.Code != 3 {
		t.Fatalf("frame %+v, want its exit with status 3", m)
	}
	if err := c.Send(&Msg{Kind: Stdin, ID: 7, Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, c); m.Kind != Fail || !strings.Contains(string(m.Data), "no process 7") {
		t.Fatalf("frame %+v, want a failure: the process is gone", m)
	}
}

// state is pid's state letter in /proc (R, S, T stopped, ...).
func state(t *testing.T, pid int32) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// The state follows the command's name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return f[0]
}

func TestAgentSignals(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), time.Second)
	c := dial(t, ta, ctl)
	if err := c.Send(&Msg{Kind: Start, ID: 1, Args: []string{"sleep", "100"}}); err != nil {
		t.Fatal(err)
	}
	started := next(t, c)
	if started.Kind != Started {
		t.Fatalf("frame %+v, want Started", started)
	}
	pid := started.Code
	// The protocol's numbers, not this system's: Linux's SIGSTOP (19) is
	// no signal of the protocol, and its SIGKILL (9) neither.
	for _, step := range []struct {
		sig  int32
		want string
	}{{SigStop, "T"}, {SigCont, "S"}} {
		if err := c.Send(&Msg{Kind: Signal, ID: 1, Code: step.sig}); err != nil {
			t.Fatal(err)
		}
		waitUntil(t, func() bool { return state(t, pid) == step.want }, "process in state "+step.want+" after signal "+strconv.Itoa(int(step.sig)))
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGSTOP, syscall.SIGKILL} {
		if err := c.Send(&Msg{Kind: Signal, ID: 1, Code: int32(sig)}); err != nil {
			t.Fatal(err)
		}
		if m := next(t, c); m.Kind != Fail || !strings.Contains(string(m.Data), "not SigKill (1), SigStop (2) or SigCont (3)") {
			t.Fatalf("frame %+v, want this system's %v (%d) refused", m, sig, int(sig))
		}
	}
	if state(t, pid) != "S" {
		t.Fatalf("process in state %s after refused signals, want S", state(t, pid))
	}
	if err := c.Send(&Msg{Kind: Signal, ID: 1, Code: SigKill}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, c); m.Kind != Exited || m.Code != -1 {
		t.Fatalf("frame %+v, want its exit by a signal", m)
	}
}

// waitUntil polls cond until it holds, or fails t after 10 s: the state
// it waits for is another process's, which no channel reports.
func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in 10 s", what)
		}
	}
}

// gone reports whether pid no longer exists (or is a zombie nobody reaped).
func gone(pid int32) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(int(pid)) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return f[0] == "Z"
}

func TestAgentKillsAfterGrace(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), 200*time.Millisecond)
	c := dial(t, ta, ctl)
	if err := c.Send(&Msg{Kind: Start, ID: 1, Args: []string{"sleep", "100"}}); err != nil {
		t.Fatal(err)
	}
	pid := next(t, c).Code
	c.Close()
	ta.log.waitFor(t, "its 1 processes die in")
	// A controller returning within the grace period keeps its process.
	c = dial(t, ta, ctl)
	time.Sleep(400 * time.Millisecond) // twice the grace period
	if gone(pid) {
		t.Fatal("the process died although its controller returned within the grace period")
	}
	c.Close()
	waitUntil(t, func() bool { return gone(pid) }, "end of the process after its controller left")
}
