package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/external"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/pow"
)

func init() { commands = append(commands, newNodeCmd) }

// nodeOptions are the flags of `electbench node`.
type nodeOptions struct {
	identityDir string
	bits        int
	forge       string
	listenFD    int
	challenge   string
}

// newNodeCmd is `electbench node`: one node process of a live run, started
// by the harness (electbench run --runtime live) as
// `electbench node --identity-dir DIR --bits B [--forge MODE] [--listen-fd FD] [--challenge C]`, which talks
// to it over stdin and stdout. Hidden: nobody types it.
func newNodeCmd() *cobra.Command { return nodeCmd(runNode) }

// nodeCmd builds the command around run, which tests replace to check flag
// parsing apart from running.
func nodeCmd(run func(*cobra.Command, live.NodeConfig) error) *cobra.Command {
	o := nodeOptions{bits: live.DefaultBits}
	cmd := &cobra.Command{
		Use:    "node [--identity-dir DIR] [--bits B] [--forge MODE] [--listen-fd FD] [--challenge C]",
		Short:  "One node process of a live run (started by the harness)",
		Hidden: true,
		Args:   cobra.ArbitraryArgs, // refused by config, with a clearer message
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.config(args)
			if err != nil {
				return err
			}
			return run(cmd, c)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.identityDir, "identity-dir", o.identityDir, "directory of the node's identity: loaded if present, else minted and kept there")
	f.IntVar(&o.bits, "bits", o.bits, "static puzzle bits of a minted identity")
	f.StringVar(&o.forge, "forge", o.forge, "present a dishonest identity (testing refusal): one of "+strings.Join(live.ForgeModes, ", "))
	f.IntVar(&o.listenFD, "listen-fd", o.listenFD, "accept peers on this inherited listening socket (the harness's) instead of a new one")
	f.StringVar(&o.challenge, "challenge", o.challenge, "sign this challenge of the harness's in hello, proving the node holds its identity's key")
	return cmd
}

// config turns the flags into the node's configuration, or a bad-input
// error naming the flag.
func (o nodeOptions) config(args []string) (live.NodeConfig, error) {
	switch {
	case len(args) > 0:
		return live.NodeConfig{}, badInputf("unexpected arguments %q: electbench node takes only flags", args)
	case o.bits < 0 || o.bits > pow.MaxBits:
		return live.NodeConfig{}, badInputf("--bits %d: want 0..%d", o.bits, pow.MaxBits)
	case o.forge != "" && !slices.Contains(live.ForgeModes, o.forge):
		return live.NodeConfig{}, badInputf("--forge %q: want one of %s", o.forge, strings.Join(live.ForgeModes, ", "))
	case o.listenFD < 0 || o.listenFD > 0 && o.listenFD < 3:
		return live.NodeConfig{}, badInputf("--listen-fd %d: want an inherited descriptor, 3 or above", o.listenFD)
	case len(o.challenge) > live.MaxChallenge:
		return live.NodeConfig{}, badInputf("--challenge: %d bytes, want at most %d", len(o.challenge), live.MaxChallenge)
	}
	return live.NodeConfig{IdentityDir: o.identityDir, Bits: o.bits, Forge: o.forge, ListenFD: o.listenFD, Challenge: o.challenge}, nil
}

// runNode runs the node until the harness stops it; a node that fails
// exits 1.
func runNode(cmd *cobra.Command, c live.NodeConfig) error {
	// An external program's standard error joins this node's, which the
	// harness keeps in live.log.
	external.SetLog(cmd.ErrOrStderr())
	if err := live.NodeMain(cmd.Context(), c, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()); err != nil {
		return failed(err)
	}
	return nil
}
