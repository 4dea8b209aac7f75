package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/external"
	"github.com/electbench/electbench/nodes/sim"
	"github.com/electbench/electbench/nodes/trial"
)

func init() { commands = append(commands, newNodeCheckCmd) }

// nodeCheckOptions are the flags of `electbench node-check`.
type nodeCheckOptions struct {
	topology string
	nodes    int
	timeout  time.Duration
}

func newNodeCheckCmd() *cobra.Command {
	o := nodeCheckOptions{nodes: 4, timeout: external.DefaultStepTimeout}
	cmd := &cobra.Command{
		Use:   "node-check CMD --topology T",
		Short: "Check that a node program speaks docs/NODE-PROTOCOL.md",
		Long: `Check a node program in any language against docs/NODE-PROTOCOL.md: its
answer to init, one election on a small cluster in the simulator (every node
must learn the highest as leader), and its tolerance of input it does not
know (unknown fields, an unknown message type, a timer it never set). Each
check prints PASS or FAIL with what is wrong in plain words.

CMD is the program and its arguments, split as a shell would (quote it).
Exit codes: 0 every check passed, 1 one failed, 2 bad usage.`,
		Args: usageArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error { return runNodeCheck(cmd, o, args[0]) },
	}
	f := cmd.Flags()
	f.StringVar(&o.topology, "topology", "", "ring, bidirectional-ring or complete (required)")
	f.IntVar(&o.nodes, "nodes", o.nodes, "cluster size of the election check")
	f.DurationVar(&o.timeout, "node-timeout", o.timeout, "time the program may take to end a step (wall time less its wait for a CPU)")
	return cmd
}

func runNodeCheck(cmd *cobra.Command, o nodeCheckOptions, command string) error {
	argv, err := external.ParseCommand(command)
	if err != nil {
		return badInput(err)
	}
	if o.topology == "" {
		return badInputf("node-check needs --topology: ring, bidirectional-ring or complete")
	}
	topo, err := external.ParseTopology(o.topology)
	if err != nil {
		return badInputf("--topology: %w", err)
	}
	if o.nodes < 2 || o.nodes > 64 {
		return badInputf("--nodes %d: want 2 to 64", o.nodes)
	}
	if o.timeout <= 0 {
		return badInputf("--node-timeout %v: must be positive", o.timeout)
	}
	spec := external.Spec{Name: "node-check", Command: argv, Topology: topo, StepTimeout: o.timeout}
	if err := spec.CheckProgram(); err != nil {
		return badInput(err)
	}
	w := cmd.OutOrStdout()
	fails := 0
	report := func(what string, err error) {
		if err != nil {
			fails++
			fmt.Fprintf(w, "FAIL  %s: %v\n", what, err)
			return
		}
		fmt.Fprintf(w, "PASS  %s\n", what)
	}
	report("init: the first line is answered with init_ok", checkInit(spec, o.nodes, false))
	report(fmt.Sprintf("election: one election on %d nodes (%s) in the simulator elects the highest everywhere", o.nodes, topo), checkElection(w, spec, o.nodes))
	report("tolerance: unknown fields, an unknown message type and a timer never set are handled, each step ended", checkTolerance(spec, o.nodes))
	if fails > 0 {
		return failed(fmt.Errorf("%d of 3 checks failed", fails))
	}
	return nil
}

// initLine is the init a node of position 0 of n, ascending ranks 1..n,
// would get; extra adds fields no version of the protocol defines.
func initLine(topo nodes.Topology, n int, extra bool) []byte {
	name := func(i int) string { return fmt.Sprintf("n%d", i) }
	peer := func(i int) map[string]any {
		return map[string]any{"node": name(i), "rank": i + 1, "id": fmt.Sprint(i + 1)}
	}
	var peers []map[string]any
	var ring []string
	switch topo {
	case nodes.RingUni:
		peers = []map[string]any{peer(1)}
	case nodes.RingBi:
		peers = []map[string]any{peer(1), peer(n - 1)}
	default:
		for i := 1; i < n; i++ {
			peers = append(peers, peer(i))
		}
	}
	if topo.IsRing() {
		for i := 1; i < n; i++ {
			ring = append(ring, name(i))
		}
	}
	var ids []string
	for i := range n {
		ids = append(ids, name(i))
	}
	body := map[string]any{
		"type": "init", "msg_id": 1, "node_id": "n0", "node_ids": ids, "rank": 1, "id": "1",
		"topology": topo.String(), "peers": peers, "t_ms": 1.0, "params": map[string]string{}, "seed": 12345,
	}
	if ring != nil {
		body["ring"] = ring
	}
	env := map[string]any{"src": "eb", "dest": "n0", "body": body}
	if extra {
		body["node_check_future_field"] = map[string]any{"nested": []int{1, 2}}
		env["node_check_envelope_field"] = true
	}
	b, _ := json.Marshal(env)
	return b
}

func checkInit(spec external.Spec, n int, extra bool) error {
	p, err := external.StartProbe(spec, "n0")
	if err != nil {
		return err
	}
	defer p.Close()
	_, err = p.Step(initLine(spec.Topology, n, extra), true)
	return err
}

// checkElection runs one election in the simulator: on a ring the
// successor of the highest initiates (the worst case), elsewhere the
// lowest. It runs it again with other ranks, on the programs of the first
// if they declared reuse: a fresh init must start a node over
// (NODE-PROTOCOL.md, "A fresh init: kept across trials").
func checkElection(w io.Writer, spec external.Spec, n int) error {
	a, err := spec.Algorithm()
	if err != nil {
		return err
	}
	for round := range 2 {
		cfg := trial.DefaultConfig()
		cfg.Algorithm = &a
		ids := make([]uint64, n)
		for i := range ids {
			ids[i] = uint64(round*n + i + 1)
		}
		cfg.Ranks = nodes.RanksFrom(ids...)
		cfg.Initiators = []int{0}
		rec, err := electOnce(cfg, n)
		if err != nil && round == 1 {
			return fmt.Errorf("the second election, ranks %d to %d (on the same processes if they declared reuse): %w", n+1, 2*n, err)
		}
		if err != nil {
			return err
		}
		if round == 0 {
			kinds := rec.MessagesByKind()
			var names []string
			for k, c := range kinds {
				names = append(names, fmt.Sprintf("%s=%d", k, c))
			}
			slices.Sort(names)
			fmt.Fprintf(w, "      %d election messages (%s), %d timeouts, last election message at %v\n",
				rec.Messages, strings.Join(names, " "), rec.Timeouts, rec.LastElection)
		}
	}
	return nil
}

// electOnce runs cfg's election and checks that every node chose the
// highest of n and the run came to rest.
func electOnce(cfg trial.Config, n int) (*trial.Record, error) {
	rec, err := sim.Run(cfg)
	if err != nil {
		return nil, err
	}
	var wrong []string
	for p, d := range rec.Decisions.All() {
		if d.Count == 0 {
			wrong = append(wrong, fmt.Sprintf("n%d never wrote a leader line", p))
		} else if d.Leader != cfg.Ranks.At(n-1) {
			wrong = append(wrong, fmt.Sprintf("n%d chose rank %v, not the highest, %v", p, d.Leader, cfg.Ranks.At(n-1)))
		}
	}
	if len(wrong) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(wrong, "; "))
	}
	if !rec.Quiescent {
		return nil, fmt.Errorf("still sending or with timers armed at the deadline (%v of virtual time)", cfg.DeadlineOrDefault())
	}
	return rec, nil
}

// checkTolerance sends a node what a later version of the protocol or a
// peer of another program could: fields it does not know, a message type
// it does not know, the expiry of a timer it never set. Each step must end
// with done.
func checkTolerance(spec external.Spec, n int) error {
	p, err := external.StartProbe(spec, "n0")
	if err != nil {
		return err
	}
	defer p.Close()
	if _, err := p.Step(initLine(spec.Topology, n, true), true); err != nil {
		return fmt.Errorf("init with fields it does not know: %w", err)
	}
	for _, c := range []struct{ what, line string }{
		{"start with a field it does not know", `{"src":"eb","dest":"n0","body":{"type":"start","node_check_field":[1]},"extra":1}`},
		{"a message of a type it does not know", `{"src":"n1","dest":"n0","body":{"type":"NODE_CHECK_UNKNOWN","rank":2,"x":{"y":null}}}`},
		{"the expiry of a timer it never set", `{"src":"eb","dest":"n0","body":{"type":"timeout","timer":"NODE_CHECK_TIMER"}}`},
	} {
		if _, err := p.Step([]byte(c.line), false); err != nil {
			return fmt.Errorf("%s: %w", c.what, err)
		}
	}
	return nil
}
