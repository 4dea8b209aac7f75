//go:build unix

package harness_test

import (
	"context"
	"crypto/ed25519"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/electbench/electbench/nodes/live/agent"
	"github.com/electbench/electbench/pow"
)

// agentMain is this test binary run as a host's agent, with the flags of
// `electbench agent` that the harness passes (Options.Agent).
func agentMain(args []string) int {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	listen := fs.String("listen", "", "")
	keyFile := fs.String("key", "", "")
	ctlFile := fs.String("controller", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	key, err := pow.ReadKeyFile(*keyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 2
	}
	ctl, err := pow.ReadFile(*ctlFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 2
	}
	a, err := agent.New(agent.Options{Key: key, Controller: ed25519.PublicKey(ctl.PublicKey[:]), Version: "test", Log: os.Stderr, Toxiproxy: serverCommand(os.Args[0])})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	fmt.Println(agent.Listening(ln.Addr(), key.Public().(ed25519.PublicKey)))
	if err := a.Serve(ctx, ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
