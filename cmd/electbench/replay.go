package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/shrink"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newReplayCmd) }

// replayOptions are the flags of `electbench replay`.
type replayOptions struct {
	times int
}

func newReplayCmd() *cobra.Command {
	o := &replayOptions{times: 10}
	cmd := &cobra.Command{
		Use:   "replay FILE [--times 10]",
		Short: "Run a one-trial scenario again and again: the same trace and verdict every time",
		Long: `Replay runs the one trial of each scenario of FILE (trials: 1, one
algorithm, one size: a counterexample, or shrink's shrunk.yaml) --times times
on the simulator, with its trace, and checks that every run gives the same
trace hash (the sha256 of the trace as run --trace writes it) and the same
verdict. A scenario that gives a trace-hash must give that hash.

Exit codes, as run's: 0 every run the same and every expectation held, 1 an
expectation failed (a counterexample's violation occurred, as it should), a
run differed, or the trace hash is not the file's (both named), 2 bad usage
or input.`,
		Args:              usageArgs(1, 1),
		ValidArgsFunction: completeScenarios,
		RunE:              func(cmd *cobra.Command, args []string) error { return runReplay(cmd, o, args[0]) },
	}
	cmd.Flags().IntVar(&o.times, "times", o.times, "runs of each scenario's trial")
	return cmd
}

func runReplay(cmd *cobra.Command, o *replayOptions, file string) error {
	if o.times < 1 {
		return badInputf("--times %d: want at least 1", o.times)
	}
	data, err := readScenario(file)
	if err != nil {
		return badInput(err)
	}
	specs, err := workloads.ParseScenarios(file, data)
	if err != nil {
		return badInput(err)
	}
	for _, s := range specs {
		if n := len(s.Plan()); n != 1 {
			return badInputf("%s: scenario %s has %d trials; replay runs one (trials: 1, one algorithm, one size)", file, s.Scenario, n)
		}
	}
	ctx, stop := interrupts(cmd, "the replay")
	defer stop()
	out := cmd.OutOrStdout()
	var fails []workloads.Failure
	for _, s := range specs {
		r, err := shrink.Replay(ctx, s, o.times)
		if err != nil {
			if ctx.Err() != nil {
				return &exitError{code: exitInterrupted, err: errors.New("interrupted")}
			}
			return err
		}
		if r.Differ != "" {
			return failed(fmt.Errorf("scenario %s is not reproducible: %d of %d runs alike, then %s", s.Scenario, r.Same, r.Runs, r.Differ))
		}
		if s.TraceHash != "" && r.First.Hash != s.TraceHash {
			return failed(&shrink.HashMismatch{Scenario: s.Scenario, Want: s.TraceHash, Got: r.First.Hash})
		}
		verdict := "every expectation held"
		if r.First.Failed() {
			verdict = "failed: " + r.First.Failures[0].What
		}
		fmt.Fprintf(out, "%s: %d/%d runs with trace hash %s and the same verdict (%s)\n", s.Scenario, r.Same, r.Runs, r.First.Hash, verdict)
		fails = append(fails, r.First.Failures...)
	}
	if len(fails) > 0 {
		return failed(fmt.Errorf("%d expectation(s) failed, as in every run", len(fails)))
	}
	return nil
}
