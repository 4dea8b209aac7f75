package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/external"
)

// interruptSignals stop a run: Ctrl-C, SIGTERM (a scheduler's stop) and
// SIGHUP (a closed terminal).
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// exitNow ends the process; a variable so that tests can watch it.
var exitNow = os.Exit

// interrupts returns a context cancelled by the first interrupt signal,
// which it acknowledges on w at once ("stopping ..."): the run then stops
// its trials, keeps every finished row and says how to resume. A second
// signal ends the process at once with exit code 130: node processes die
// with it (they watch their parent), and what a killed run leaves on disk
// (temporary directories) the next run or `electbench clean` removes.
func interrupts(cmd *cobra.Command, what string) (context.Context, context.CancelFunc) {
	return watchInterrupts(cmd.Context(), cmd.ErrOrStderr(), what)
}

func watchInterrupts(parent context.Context, w io.Writer, what string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, interruptSignals...)
	stopped := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(w, "\n%s: stopping %s, keeping what has finished (%s again to quit at once)\n", sigName(sig), what, sigName(sig))
			cancel()
			external.Interrupt() // a node program stuck in a step
		case <-stopped:
			return
		}
		select {
		case sig := <-sigs:
			fmt.Fprintf(w, "%s again: quitting at once\n", sigName(sig))
			exitNow(exitInterrupted)
		case <-stopped:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(stopped)
		cancel()
	}
}

func sigName(s os.Signal) string {
	if s == os.Interrupt {
		return "Ctrl-C"
	}
	return s.String()
}
