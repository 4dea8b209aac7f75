package main

import (
	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

func init() { commands = append(commands, newToxiServerCmd) }

// newToxiServerCmd is `electbench toxiproxy-server`: one of the Toxiproxy
// servers of a live cluster too large for the harness process's file
// descriptors, started by the harness, which reads the URL it prints and
// stops it by closing its standard input. Hidden: nobody types it.
func newToxiServerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "toxiproxy-server",
		Short:  "A Toxiproxy server of a live run (started by the harness)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := toxi.Serve(cmd.InOrStdin(), cmd.OutOrStdout()); err != nil {
				return failed(err)
			}
			return nil
		},
	}
}
