package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/shrink"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newShrinkCmd) }

// shrinkOptions are the flags of `electbench shrink`.
type shrinkOptions struct {
	out string
}

func newShrinkCmd() *cobra.Command {
	o := &shrinkOptions{out: "electbench-shrink"}
	cmd := &cobra.Command{
		Use:   "shrink FILE --out DIR",
		Short: "Minimise a failing scenario to the smallest run that still fails the same way",
		Long: `Shrink takes a scenario file (a counterexample from electbench hunt, a
built-in scenario, any file) one of whose trials fails an expectation, picks
its first failing trial (and says so when the file holds more), and makes it
smaller and simpler while the same violation still occurs: the same property
failed, for safety the same kind of violation, and no message later than a
bounded-delay algorithm's D unless the original had one. Its passes, each
repeated until it changes nothing: drop faults, drop heals, shorten faults,
simpler triggers, fewer processes, fewer initiators, constant latency,
simpler fault parameters, a deadline just past the violation, and a small
seed; then, once, the random draws themselves (link delays, drawn timers)
toward their simplest values, which shrunk.yaml carries in draws:. It runs
on the simulator and is deterministic.

It writes DIR/shrunk.yaml (a scenario file electbench run accepts, with the
trace-hash of its trial), DIR/trace.jsonl (that trial's trace) and
DIR/story.html (the fault story: the space-time diagram with the violating
event marked, and a sentence per fault). Ctrl-C writes the smallest found so
far. docs/SHRINK.md tells the rest.

Exit codes: 0 shrunk, 2 bad input (no such file, a file whose run passes,
one whose trace-hash no longer matches; nothing is written), 130
interrupted (the best so far is written).`,
		Args:              usageArgs(1, 1),
		ValidArgsFunction: completeScenarios,
		RunE:              func(cmd *cobra.Command, args []string) error { return runShrink(cmd, o, args[0]) },
	}
	cmd.Flags().StringVar(&o.out, "out", o.out, "output directory: shrunk.yaml, trace.jsonl, story.html")
	return cmd
}

// verifyReplays is how many times shrink replays its result before
// writing it (replay's default is 10; a node program's trial costs a
// second or so, so fewer here).
const verifyReplays = 3

func runShrink(cmd *cobra.Command, o *shrinkOptions, file string) error {
	data, err := readScenario(file)
	if err != nil {
		return badInput(err)
	}
	ctx, stop := interrupts(cmd, "the shrink")
	defer stop()
	interrupted := &exitError{code: exitInterrupted, err: errors.New("interrupted before a failing trial was picked: nothing written")}
	if err := checkFileHashes(ctx, file, data); err != nil {
		if ctx.Err() != nil {
			return interrupted
		}
		return badInput(err)
	}
	p, err := shrink.Pick(ctx, file, data)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted
		}
		return badInput(err)
	}
	stderr := cmd.ErrOrStderr()
	if p.Note != "" {
		fmt.Fprintf(stderr, "shrink: %s\n", p.Note)
	}
	fmt.Fprintf(stderr, "shrink: keeping %s: %s\n", p.Violation, p.Outcome.Row.Violation)
	res, err := shrink.Shrink(ctx, p, func(s shrink.Step) { fmt.Fprintf(stderr, "shrink: %s\n", s) })
	if err != nil {
		return err
	}
	// The file's promise, checked before it is written: it replays its
	// violation with its trace hash (a failure is electbench's, or a node
	// program's that draws from a source the runtime did not seed).
	if err := shrink.Verify(ctx, res, verifyReplays); err != nil && !res.Interrupted {
		return &exitError{code: exitInfra, err: fmt.Errorf("shrink: %w", err)}
	}
	if err := shrink.Write(o.out, res); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d faults, N=%s shrunk to %d faults, N=%s in %d runs, still failing %s\nwrote %s (trace-hash %s), %s, %s\n",
		file, len(p.Scenario.Faults), p.Scenario.Nodes, len(res.Scenario.Faults), res.Scenario.Nodes, res.Tried, res.Violation,
		filepath.Join(o.out, shrink.ShrunkFile), res.Scenario.TraceHash, filepath.Join(o.out, shrink.TraceFile), filepath.Join(o.out, shrink.StoryFile))
	if d := res.Draws; d.Before > 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "random draws not the simplest: %d shrunk to %d in %d runs\n", d.Before, d.After, d.Tried)
	}
	if res.Interrupted {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted: the smallest scenario found so far is written")}
	}
	return nil
}

// checkFileHashes checks the trace-hash of every scenario of a file that
// gives one: a *shrink.HashMismatch when a trial no longer runs as it did.
func checkFileHashes(ctx context.Context, file string, data []byte) error {
	specs, err := workloads.ParseScenarios(file, data)
	if err != nil {
		var es chaos.Errors
		if errors.As(err, &es) {
			return err
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	for _, s := range specs {
		if err := shrink.CheckHash(ctx, s); err != nil {
			return err
		}
	}
	return nil
}
