// Package livetest lets a test binary stand in for `electbench node`: the
// live harness re-executes the electbench binary as its nodes, and a test
// that runs live trials re-executes itself, with the algorithms it links
// in registered. It parses the node's flags, which nodes/live leaves to its
// command line; tests alone import it.
//
//	func TestMain(m *testing.M) {
//		livetest.Main()
//		os.Exit(m.Run())
//	}
//
// and harness.Options{Node: node, Env: env} with node, env :=
// livetest.Command(t).
package livetest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/electbench/electbench/nodes/live"
)

// EnvNode, set to 1 in a node's environment, makes Main run the test
// binary as a node.
const EnvNode = "ELECTBENCH_LIVE_NODE"

// EnvAccuse, set to "K:N" in the nodes' environment, makes the node of
// spawn index K dishonest: once linked it reports that it refused the
// identity of every position 0..N-1 (its own among them), though every
// peer is honest: a node's word, which the harness must not take as proof.
const EnvAccuse = "ELECTBENCH_LIVE_ACCUSE"

// Main runs this test binary as a node, and exits, when the harness started
// it as one; otherwise it returns. Call it first in TestMain.
func Main() {
	if os.Getenv(EnvNode) == "1" {
		os.Exit(NodeMain(os.Args[1:]))
	}
}

// NodeMain is `electbench node` for a test binary: it parses the flags the
// harness passes (--identity-dir, --bits, --forge, --listen-fd, --challenge), runs the node on stdin
// and stdout, and returns the exit code.
func NodeMain(args []string) int {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	c := live.NodeConfig{Bits: live.DefaultBits}
	fs.StringVar(&c.IdentityDir, "identity-dir", c.IdentityDir, "")
	fs.IntVar(&c.Bits, "bits", c.Bits, "")
	fs.StringVar(&c.Forge, "forge", c.Forge, "")
	fs.IntVar(&c.ListenFD, "listen-fd", c.ListenFD, "")
	fs.StringVar(&c.Challenge, "challenge", c.Challenge, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var out io.Writer = os.Stdout
	if k, n, ok := strings.Cut(os.Getenv(EnvAccuse), ":"); ok && k == filepath.Base(c.IdentityDir) {
		all, _ := strconv.Atoi(n)
		out = &accuser{w: os.Stdout, n: all}
	}
	if err := live.NodeMain(context.Background(), c, os.Stdin, out, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	return 0
}

// accuser passes a node's control lines on and, after each "linked" (one
// a trial), adds a false refusal of every position (EnvAccuse).
type accuser struct {
	w io.Writer
	n int
}

func (a *accuser) Write(p []byte) (int, error) {
	k, err := a.w.Write(p)
	if err != nil || !bytes.Contains(p, []byte(`"type":"linked"`)) {
		return k, err
	}
	for peer := range a.n {
		fmt.Fprintf(a.w, "{\"type\":\"refused\",\"peer\":%d,\"side\":\"accept\",\"reason\":\"made up\"}\n", peer)
	}
	return k, nil
}

// Command is the node command and environment that run this test binary as
// a node (harness.Options.Node and Env).
func Command(t testing.TB) (node, env []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}, []string{EnvNode + "=1"}
}

// Log collects the nodes' diagnostics (harness.Options.Log) and shows them
// if t fails.
func Log(t testing.TB) *Buffer {
	b := &Buffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("node diagnostics:\n%s", b.String())
		}
	})
	return b
}

// Buffer is a bytes.Buffer safe for concurrent writers.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Marked lists the processes whose environment holds mark (a KEY=value a
// test adds to the environment of the run it starts, which the run's
// nodes and servers inherit), as "pid: command line": what a run left
// behind once it has exited.
func Marked(mark string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == mark {
				cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
				out = append(out, filepath.Base(d)+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
	}
	return out
}
