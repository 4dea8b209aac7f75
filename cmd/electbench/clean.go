package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newCleanCmd) }

type cleanOptions struct {
	toxiproxy string
}

func newCleanCmd() *cobra.Command {
	o := &cleanOptions{}
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove what killed live runs left behind",
		Long: `Remove what live runs killed before they could clean up (SIGKILL, a crash
of the host) left behind: their temporary directories (identities and keys),
every run's trace spools (electbench-trace-* in the temporary directory),
the nftables tables of their link cuts (electbench_<pid>; as root), the
network namespaces, bridge and veths of their --netns hosts (eb<hash>-<i>
under /run/netns, eb<hash>; as root) and,
with --toxiproxy, their proxies on that server. A run is taken for dead
only once its process is provably gone: by its pid and start time, in this
PID namespace and boot. What a run of another PID namespace (a container
sharing TMPDIR or the server) left is kept: run clean there. Every run does
this itself when it starts.

Exit codes: 0 ok, 3 something could not be removed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runClean(cmd, o) },
	}
	cmd.Flags().StringVar(&o.toxiproxy, "toxiproxy", "", "also remove dead runs' proxies on the toxiproxy-server at this URL")
	return cmd
}

func runClean(cmd *cobra.Command, o *cleanOptions) error {
	c, err := harness.Clean(cmd.Context(), o.toxiproxy)
	spools, serr := workloads.RemoveDeadSpools()
	err = errors.Join(err, serr)
	out := cmd.OutOrStdout()
	for _, p := range spools {
		fmt.Fprintln(out, "removed", p)
	}
	for _, d := range c.Dirs {
		fmt.Fprintln(out, "removed", d)
	}
	for _, p := range c.Proxies {
		fmt.Fprintln(out, "removed proxy", p)
	}
	for _, t := range c.Tables {
		fmt.Fprintln(out, "removed nftables table", t)
	}
	for _, h := range c.Hosts {
		fmt.Fprintln(out, "removed", h)
	}
	if err != nil {
		return &exitError{code: exitInfra, err: err}
	}
	return nil
}
