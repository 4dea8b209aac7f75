package main

import (
	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

func init() { commands = append(commands, newToxiServerCmd) }

// newToxiServerCmd is `electbench toxiproxy-server`: one of the Toxiproxy
// servers of a live cluster too large for the harness process's file
// descriptors, started by the harness, which reads the URL it prints and
// stops it by closing its standard input; in a --netns host it listens
// on the host's address (--listen). Hidden: nobody types it.
func newToxiServerCmd() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:    "toxiproxy-server",
		Short:  "A Toxiproxy server of a live run (started by the harness)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := toxi.Serve(cmd.InOrStdin(), cmd.OutOrStdout(), listen); err != nil {
				return failed(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1", "the address its API and proxies listen on")
	return cmd
}
