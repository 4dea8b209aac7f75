package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

func init() { commands = append(commands, newListCmd) }

// listings maps what `electbench list` can show to the function showing
// it in a --print form (printForms).
var listings = map[string]func(w io.Writer, form string) error{
	"algorithms": listAlgorithms,
	"faults":     listFaults,
	"workloads":  listWorkloads,
}

func newListCmd() *cobra.Command {
	var form string
	cmd := &cobra.Command{
		Use:       "list algorithms|faults|workloads",
		Short:     "List what exists, one line each",
		ValidArgs: []string{"algorithms", "faults", "workloads"},
		Args:      usageArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			show, ok := listings[args[0]]
			if !ok {
				return badInputf("list: unknown topic %q (known: algorithms, faults, workloads)", args[0])
			}
			if err := checkPrint(form); err != nil {
				return err
			}
			return show(cmd.OutOrStdout(), form)
		},
	}
	bindPrint(cmd, &form, "the list")
	return cmd
}

// listing is a list as a table: its columns, those of the narrow form,
// and its rows. The narrow form's last column is cut to the terminal's
// width; wide prints every column; json an array of objects keyed by the
// columns' names in lower case.
type listing struct {
	cols   []string
	narrow []int
	rows   [][]string
}

func (l listing) write(w io.Writer, form string) error {
	if form == "json" {
		out := make([]map[string]string, len(l.rows))
		for i, r := range l.rows {
			out[i] = map[string]string{}
			for c, v := range r {
				out[i][strings.ToLower(l.cols[c])] = v
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	show := l.narrow
	if form == "wide" {
		show = make([]int, len(l.cols))
		for c := range show {
			show[c] = c
		}
	}
	widths := make([]int, len(l.cols))
	for _, r := range append([][]string{l.cols}, l.rows...) {
		for c, v := range r {
			widths[c] = max(widths[c], utf8.RuneCountInString(v))
		}
	}
	limit := termWidth(w)
	var b strings.Builder
	for _, r := range append([][]string{l.cols}, l.rows...) {
		var line strings.Builder
		for i, c := range show {
			v := r[c]
			if i < len(show)-1 {
				line.WriteString(v + strings.Repeat(" ", widths[c]-utf8.RuneCountInString(v)+2))
				continue
			}
			if room := limit - utf8.RuneCountInString(line.String()); form != "wide" && limit > 0 && utf8.RuneCountInString(v) > room {
				v = string([]rune(v)[:max(room-1, 0)]) + "…"
			}
			line.WriteString(v)
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	_, err := io.WriteString(w, reports.Printable(b.String()))
	return err
}

func listAlgorithms(w io.Writer, form string) error {
	l := listing{cols: []string{"ALGORITHM", "FAMILY", "TOPOLOGY", "VARIANTS", "PARAMETERS", "MODEL", "RUNTIMES", "SUMMARY"},
		narrow: []int{0, 1, 6, 7}}
	for _, a := range nodes.Algorithms() {
		var vs, ps []string
		for _, v := range a.Variants {
			vs = append(vs, v.Name)
		}
		for _, p := range a.Params {
			ps = append(ps, p.Name+"="+p.Default)
		}
		l.rows = append(l.rows, []string{a.Name, a.Family, a.Topology.String(),
			strings.Join(vs, ","), orDash(strings.Join(ps, ",")), a.Model.String(), a.Runtimes(), a.Summary})
	}
	return l.write(w, form)
}

func listWorkloads(w io.Writer, form string) error {
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
	if form == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(lines)
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
