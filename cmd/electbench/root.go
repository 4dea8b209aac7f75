package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes (STYLE.md, "Command line").
const (
	exitOK       = 0
	exitFailed   = 1 // an expectation or a comparison failed
	exitBadInput = 2 // bad usage or input
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

func run(args []string, stdout, stderr io.Writer) int {
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
