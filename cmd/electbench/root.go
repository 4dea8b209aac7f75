package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/electbench/electbench/nodes/external"
	"github.com/electbench/electbench/nodes/trial"

	"github.com/spf13/cobra"
)

// Exit codes (docs/STYLE.md, "Errors and exit codes").
const (
	exitOK       = 0
	exitFailed   = 1 // an expectation or a comparison failed
	exitBadInput = 2 // bad usage or input
	// exitInfra: the infrastructure failed (Toxiproxy, a process spawn, the
	// host) or electbench itself did (a panic); finished trials are kept
	// and --resume runs the rest.
	exitInfra       = 3
	exitInterrupted = 130
)

// exitError carries an exit code with the error to print.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// badInput marks err as the user's mistake: exit code 2.
func badInput(err error) error { return &exitError{code: exitBadInput, err: err} }

// badInputf formats a usage or input error: exit code 2.
func badInputf(format string, args ...any) error { return badInput(fmt.Errorf(format, args...)) }

// failed marks err as a failed expectation or comparison: exit code 1.
func failed(err error) error { return &exitError{code: exitFailed, err: err} }

// commands holds the constructors of the top-level subcommands; each command's
// file appends its own from init, so adding a command touches nothing here.
var commands []func() *cobra.Command

// Main runs the command line and returns the process exit code. Errors are
// printed here, once.
func Main() int { return run(os.Args[1:], os.Stdout, os.Stderr) }

func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		// An internal failure is never mistaken for bad input (which a
		// panic's default exit status, 2, would be).
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "electbench: internal error: %v%s\n", p, keepStack(debug.Stack()))
			code = exitInfra
		}
	}()
	// Node programs kept for a next trial (NODE-PROTOCOL.md, "Kept across
	// trials") end with the command.
	defer external.StopIdle()
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "electbench:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, trial.ErrInfrastructure) {
		return exitInfra
	}
	// cobra's own errors are flag and argument mistakes.
	return exitBadInput
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "electbench",
		Short: "Benchmark and chaos-test leader-election algorithms",
		Long: `electbench measures leader-election algorithms the way their papers analyse
them (messages, timeouts, turnaround) in a deterministic simulator and in real
node processes behind Toxiproxy, and then breaks the network under them.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("electbench {{.Version}}\n")
	root.SetFlagErrorFunc(flagError)
	for _, c := range commands {
		root.AddCommand(c())
	}
	root.SetHelpCommand(newHelpCmd())
	root.InitDefaultCompletionCmd()
	requireSubcommand(root)
	return root
}

// usageArgs accepts from min to max arguments (max < 0: no limit) and
// refuses any other count with the command's usage line, which names what
// it takes, rather than cobra's bare count.
func usageArgs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= min && (max < 0 || len(args) <= max) {
			return nil
		}
		return badInputf("%s: got %d argument(s); usage: %s", strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), len(args), usageLine(cmd))
	}
}

// usageLine is cmd's Use with its parents' names before it.
func usageLine(cmd *cobra.Command) string {
	if cmd.HasParent() {
		return cmd.Parent().CommandPath() + " " + cmd.Use
	}
	return cmd.Use
}

// keepStack writes an internal failure's stack to a file of its own, for
// the report a user files, and says where: the terminal gets one line, not
// a Go runtime dump.
func keepStack(stack []byte) string {
	f, err := os.CreateTemp("", "electbench-internal-*.txt")
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Write(stack); err != nil {
		return ""
	}
	return fmt.Sprintf(" (a bug of electbench: its stack is in %s; please report it)", f.Name())
}
