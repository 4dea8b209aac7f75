package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/live"
)

func init() { commands = append(commands, newNodeCmd) }

// errNodeFailed: the node has already said why on stderr.
var errNodeFailed = errors.New("node stopped with an error")

// newNodeCmd is `electbench node`: one node process of a live run, started
// by the harness (electbench run --runtime live), which talks to it over
// stdin and stdout. Hidden: nobody types it.
func newNodeCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "node [--identity-dir DIR] [--bits B]",
		Short:              "One node process of a live run (started by the harness)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if code := live.Main(args, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return &exitError{code: code, err: errNodeFailed}
			}
			return nil
		},
	}
}
