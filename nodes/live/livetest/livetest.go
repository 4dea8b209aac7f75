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
	"os"
	"sync"
	"testing"

	"github.com/electbench/electbench/nodes/live"
)

// EnvNode, set to 1 in a node's environment, makes Main run the test
// binary as a node.
const EnvNode = "ELECTBENCH_LIVE_NODE"

// Main runs this test binary as a node, and exits, when the harness started
// it as one; otherwise it returns. Call it first in TestMain.
func Main() {
	if os.Getenv(EnvNode) == "1" {
		os.Exit(NodeMain(os.Args[1:]))
	}
}

// NodeMain is `electbench node` for a test binary: it parses the flags the
// harness passes (--identity-dir, --bits, --forge, --listen-fd), runs the node on stdin
// and stdout, and returns the exit code.
func NodeMain(args []string) int {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	c := live.NodeConfig{Bits: live.DefaultBits}
	fs.StringVar(&c.IdentityDir, "identity-dir", c.IdentityDir, "")
	fs.IntVar(&c.Bits, "bits", c.Bits, "")
	fs.StringVar(&c.Forge, "forge", c.Forge, "")
	fs.IntVar(&c.ListenFD, "listen-fd", c.ListenFD, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := live.NodeMain(context.Background(), c, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		return 1
	}
	return 0
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
