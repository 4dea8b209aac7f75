package main

import (
	"crypto/ed25519"
	"fmt"
	"net"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/live/agent"
	"github.com/electbench/electbench/pow"
)

func init() { commands = append(commands, newAgentCmd) }

// agentOptions are `electbench agent`'s flags.
type agentOptions struct {
	listen     string
	key        string
	controller string
	grace      time.Duration
}

func newAgentCmd() *cobra.Command {
	o := agentOptions{grace: agent.DefaultGrace}
	cmd := &cobra.Command{
		Use:   "agent --listen ADDR --key FILE --controller FILE",
		Short: "Run a host's agent for live clusters spread over several hosts",
		Long: `An agent runs on each host of a live run spread over several hosts
(docs/multi-host.md): the controller reaches it over one TLS 1.3 connection,
each side accepting only the other's pinned Ed25519 key, and has it start and
signal processes on this host, whose lines it relays stamped on this host's
monotonic clock, and start this host's Toxiproxy server (its API on loopback,
reached only through this connection). When the controller has been gone for
--grace, the agent kills everything it started. Keys are those of ` + "`electbench pow mint`" + `: --key is this
agent's private key file, --controller the controller's identity file.
It prints the address it listens on, and its public key, on one line.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runAgent(cmd, &o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", o.listen, "address to accept the controller on, host:port (port 0: any)")
	f.StringVar(&o.key, "key", o.key, "this agent's private key file (PEM, Ed25519)")
	f.StringVar(&o.controller, "controller", o.controller, "the controller's identity file: the only key accepted")
	f.DurationVar(&o.grace, "grace", o.grace, "how long processes outlive their controller's connection, waiting for it to return")
	for _, name := range []string{"listen", "key", "controller"} {
		cmd.MarkFlagRequired(name)
	}
	return cmd
}

func runAgent(cmd *cobra.Command, o *agentOptions) error {
	if o.grace <= 0 {
		return badInputf("--grace %v: want a positive duration", o.grace)
	}
	key, err := pow.ReadKeyFile(o.key)
	if err != nil {
		return badInputf("--key: %w", err)
	}
	id, err := pow.ReadFile(o.controller)
	if err != nil {
		return badInputf("--controller: %w", err)
	}
	// The host's Toxiproxy server is this executable's, as the harness
	// starts its own (`electbench toxiproxy-server`).
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("agent: finding this executable to run the host's Toxiproxy server: %w", err)
	}
	a, err := agent.New(agent.Options{Key: key, Controller: ed25519.PublicKey(id.PublicKey[:]),
		Grace: o.grace, Version: versionString(), Log: cmd.ErrOrStderr(), Toxiproxy: []string{exe, "toxiproxy-server"}})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return badInputf("--listen: %w", err)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), interruptSignals...)
	defer stop()
	fmt.Fprintln(cmd.OutOrStdout(), agent.Listening(ln.Addr(), key.Public().(ed25519.PublicKey)))
	return a.Serve(ctx, ln)
}
