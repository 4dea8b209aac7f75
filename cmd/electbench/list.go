package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

func init() { commands = append(commands, newListCmd) }

// listings maps what `electbench list` can show to the function showing it.
var listings = map[string]func(io.Writer) error{
	"algorithms": listAlgorithms,
	"faults":     listFaults,
	"workloads":  listWorkloads,
}

func newListCmd() *cobra.Command {
	return &cobra.Command{
		Use:       "list algorithms|faults|workloads",
		Short:     "List what exists, one line each",
		ValidArgs: []string{"algorithms", "faults", "workloads"},
		Args:      usageArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			show, ok := listings[args[0]]
			if !ok {
				return badInputf("list: unknown topic %q (known: algorithms, faults, workloads)", args[0])
			}
			return show(cmd.OutOrStdout())
		},
	}
}

func listAlgorithms(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ALGORITHM\tFAMILY\tTOPOLOGY\tVARIANTS\tPARAMETERS\tMODEL\tRUNTIMES\tSUMMARY")
	for _, a := range nodes.Algorithms() {
		var vs, ps []string
		for _, v := range a.Variants {
			vs = append(vs, v.Name)
		}
		for _, p := range a.Params {
			ps = append(ps, p.Name+"="+p.Default)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Name, a.Family, a.Topology,
			strings.Join(vs, ","), orDash(strings.Join(ps, ",")), a.Model, a.Runtimes(), a.Summary)
	}
	return tw.Flush()
}

func listWorkloads(w io.Writer) error {
	lines := []string{
		"--nodes N | A..B | 3,5,8: cluster sizes (A..B doubles from A to B)",
		"--ids random: a random permutation of 1..N, drawn from the trial seed",
		"--ids ascending: ids increase in the direction of travel (successor larger)",
		"--ids descending: ids decrease in the direction of travel",
		"--ids bit-reversal: position i holds its bit-reversed index + 1, the ring of the Ω(N log N) lower bound",
		"--ids anonymous: every process the same id; the checker reports symmetric, several leaders or none",
		"--ids 5,1,4,2,3: explicit ids by ring position",
		"--initiators all | max | successor-of-max | lowest | random(k) | 0,3: who initiates at time 0 (mutual exclusion: who requests the section)",
		"--param requests=K,hold=1T,think=0,stagger=0: mutual exclusion's request workload: each initiator asks K times, holds the section for hold, waits think before asking again; rank order r asks first at r×stagger",
		"--algo all: every asynchronous election algorithm (time-slice, variable-speeds and itai-rodeh run when named); --algo mutex: every mutual-exclusion algorithm",
	}
	for _, l := range trial.LatencyModels() {
		lines = append(lines, "--latency "+l)
	}
	for _, l := range lines {
		if _, err := fmt.Fprintln(w, l); err != nil {
			return err
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
