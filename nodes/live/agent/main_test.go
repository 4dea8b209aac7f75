package agent

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// controllerEnv, when set ("addr controller-private-key-hex
// agent-public-key-hex"), makes the test binary a controller
// (controllerMain) that a test can SIGKILL.
const controllerEnv = "ELECTBENCH_AGENT_TEST_CONTROLLER"

// agentEnv, when set ("listen-host controller-public-key-hex
// agent-private-key-hex"), makes the test binary an agent (agentMain),
// which a test can start inside a network namespace.
const agentEnv = "ELECTBENCH_AGENT_TEST_AGENT"

func TestMain(m *testing.M) {
	if v := os.Getenv(controllerEnv); v != "" {
		os.Exit(controllerMain(v))
	}
	if v := os.Getenv(agentEnv); v != "" {
		os.Exit(agentMain(v))
	}
	if len(os.Args) == 4 && os.Args[1] == "toxiproxy-server" && os.Args[2] == "--listen" {
		// A host's Toxiproxy server, as the agent starts it
		// (Options.Toxiproxy): a stand-in that answers with its pid.
		os.Exit(toxiMain(os.Args[3]))
	}
	os.Exit(m.Run())
}

// controllerMain connects to the agent, has it start a sleeping process
// and then, given two more addresses, cut packets from the one to the
// other, or else start its Toxiproxy server; prints the process's pid
// (and the server's) and waits to be killed.
func controllerMain(v string) int {
	f := strings.Fields(v)
	key, err1 := hex.DecodeString(f[1])
	agentKey, err2 := hex.DecodeString(f[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "controller: bad keys in", controllerEnv)
		return 2
	}
	c, err := Dial(context.Background(), f[0], ed25519.PrivateKey(key), ed25519.PublicKey(agentKey))
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		return 1
	}
	if err := c.Send(&Msg{Kind: Start, ID: 1, Args: []string{"sleep", "100"}}); err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		return 1
	}
	m := <-c.Msgs()
	if m == nil || m.Kind != Started {
		fmt.Fprintf(os.Stderr, "controller: %+v, want Started (%v)\n", m, c.Err())
		return 1
	}
	if len(f) == 5 {
		if err := c.Send(&Msg{Kind: Cut, ID: 2, Addr: f[3], Args: []string{f[4]}}); err != nil {
			fmt.Fprintln(os.Stderr, "controller:", err)
			return 1
		}
		if m := <-c.Msgs(); m == nil || m.Kind != Applied {
			fmt.Fprintf(os.Stderr, "controller: %+v, want Applied (%v)\n", m, c.Err())
			return 1
		}
		fmt.Println("pid", m.Code)
		select {}
	}
	server, err := startToxi(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "controller:", err)
		return 1
	}
	fmt.Println("pid", m.Code, "server", server)
	select {}
}

// startToxi has the agent start its Toxiproxy server and asks the server
// its pid through the agent, returning the answer's body.
func startToxi(c *Client) (string, error) {
	if err := c.Send(&Msg{Kind: ToxiStart, ID: 1}); err != nil {
		return "", err
	}
	if r := <-c.Msgs(); r == nil || r.Kind != ToxiReply || r.Code < 0 {
		return "", fmt.Errorf("%+v, want the ToxiReply of a start (%v)", r, c.Err())
	}
	if err := c.Send(&Msg{Kind: ToxiRequest, ID: 2, Data: []byte("GET /pid HTTP/1.1\r\nHost: x\r\n\r\n")}); err != nil {
		return "", err
	}
	r := <-c.Msgs()
	if r == nil || r.Kind != ToxiReply || r.Code < 0 {
		return "", fmt.Errorf("%+v, want the Toxiproxy server's answer (%v)", r, c.Err())
	}
	_, body, _ := strings.Cut(string(r.Data), "\r\n\r\n")
	return strings.TrimSpace(body), nil
}

// agentMain serves as an agent on the given host, any port, printing
// its address, until its standard input closes.
func agentMain(v string) int {
	f := strings.Fields(v)
	ctl, err1 := hex.DecodeString(f[1])
	key, err2 := hex.DecodeString(f[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "agent: bad keys in", agentEnv)
		return 2
	}
	a, err := New(Options{Key: ed25519.PrivateKey(key), Controller: ed25519.PublicKey(ctl), Grace: 200 * time.Millisecond, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(f[0], "0"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	fmt.Println("listening", ln.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := a.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestKilledControllerLeavesNothing: a controller SIGKILLed (no chance to
// close anything) leaves no process of its on the agent's host once the
// grace period has passed.
func TestKilledControllerLeavesNothing(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), 200*time.Millisecond)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %x %x", controllerEnv, ta.addr, []byte(ctl), []byte(pub(ta.key))))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the controller process said nothing")
	}
	var pid, server int
	if _, err := fmt.Sscanf(sc.Text(), "pid %d server pid %d", &pid, &server); err != nil {
		t.Fatalf("the controller said %q, want its process's and its Toxiproxy server's pids: %v", sc.Text(), err)
	}
	if gone(int32(pid)) || gone(int32(server)) {
		t.Fatalf("process %d or server %d is not running before its controller is killed", pid, server)
	}
	cmd.Process.Kill()
	cmd.Wait()
	ta.log.waitFor(t, "its 1 processes die in 200ms")
	waitUntil(t, func() bool { return gone(int32(pid)) }, "end of the process after its controller was SIGKILLed")
	waitUntil(t, func() bool { return gone(int32(server)) }, "end of the Toxiproxy server after its controller was SIGKILLed")
}

// toxiMain stands in for `electbench toxiproxy-server --listen host`: it
// serves HTTP on host, answering every request with its pid, its method
// and its path, prints its URL and serves until its standard input
// closes.
func toxiMain(host string) int {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "toxiproxy-server:", err)
		return 1
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "pid %d %s %s %s", os.Getpid(), r.Method, r.URL.RequestURI(), body)
	}))
	fmt.Println("http://" + ln.Addr().String())
	io.Copy(io.Discard, os.Stdin)
	return 0
}
