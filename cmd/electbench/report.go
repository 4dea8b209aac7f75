package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/internal/boundedio"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newReportCmd) }

// reportOptions are the flags of `electbench report`.
type reportOptions struct {
	out   string
	trace string
}

func newReportCmd() *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report RESULTS.csv|DIR [-o FILE] [--trace FILE]",
		Short: "Render results as one self-contained report.html",
		Long: `Render the results of any earlier run (a results.csv, or a directory holding
one) as a single HTML page that opens offline: summary, messages against N
with the theoretical curves, turnaround and decided distributions, timeouts,
and the verdicts with every failing trial. With --trace (the file written by
run --trace; by default the directory's trace.jsonl, which run keeps without
--trace for small live trials and incidents, if there is one) it adds the events around each violation and message-sequence
diagrams of small trials.

The report goes beside the results file unless -o says otherwise (- for
standard output).

Exit codes: 0 ok, 2 bad usage or input.`,
		Args: usageArgs(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd, args[0], o) },
	}
	bindOutput(cmd.Flags(), &o.out, "report file (default: report.html beside the results; - for stdout)")
	cmd.Flags().StringVar(&o.trace, "trace", "", "trace file of the same run (run --trace), for violation excerpts and diagrams")
	return cmd
}

// resultsPath accepts a results file or a directory holding results.csv.
func resultsPath(arg string) (string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return "", badInput(err)
	}
	if st.IsDir() {
		p := filepath.Join(arg, reports.ResultsCSV)
		if _, err := os.Stat(p); err != nil {
			return "", badInputf("%s holds no %s", arg, reports.ResultsCSV)
		}
		return p, nil
	}
	return arg, nil
}

// scanResults reads a results file (a directory's results.csv), handing
// each row to add (reports.ScanFile) rather than holding them; a file
// that is not one is bad input.
func scanResults(arg string, add func(*reports.Row)) (string, error) {
	path, err := resultsPath(arg)
	if err != nil {
		return "", err
	}
	err = reports.ScanFile(path, func(r *reports.Row) error {
		add(r)
		return nil
	})
	return path, resultsError(err)
}

// resultsError marks an error reading a results file as bad input when
// the file is not one.
func resultsError(err error) error {
	var pe *reports.ParseError
	if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, boundedio.ErrTooLarge) {
		return badInput(err)
	}
	return err
}

// runReport reads the results file as a stream (reports.FileRows): the
// report keeps what it draws, not the rows, each some three times its
// line of CSV.
func runReport(cmd *cobra.Command, arg string, o reportOptions) error {
	path, err := resultsPath(arg)
	if err != nil {
		return err
	}
	var trials int
	rows := resultsRows(path, &trials)
	var m *reports.Manifest
	if mf, ok, err := reports.ReadManifest(filepath.Dir(path)); err == nil && ok {
		m = &mf
	}
	opt := htmlOptions(path, m)
	if opt.Signatures, err = manifestSignatures(m, rows); err != nil {
		return err
	}
	if o.trace == "" {
		// What run kept without --trace (small live trials, an incident's
		// first trial per configuration) serves its report again.
		if p := filepath.Join(filepath.Dir(path), TraceFile); regularFile(p) {
			o.trace = p
		}
	}
	if o.trace != "" {
		f, err := os.Open(o.trace)
		if err != nil {
			return badInputf("--trace: %w", err)
		}
		defer f.Close()
		opt.Trace, opt.TraceName = f, o.trace
		opt.Explore = exploreCommand(o.trace)
	}
	if o.out == "-" {
		if opt.Hunts, err = runHunts(path, o.out); err != nil {
			return err
		}
		if err := reports.WriteHTML(cmd.OutOrStdout(), rows, opt); err != nil {
			return reportError(err)
		}
		return nil
	}
	out := o.out
	if out == "" {
		out = filepath.Join(filepath.Dir(path), reports.ReportHTML)
	}
	if opt.Hunts, err = runHunts(path, out); err != nil {
		return err
	}
	if err := reports.WriteHTMLFile(out, rows, opt); err != nil {
		return reportError(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%d trials)\n", out, trials)
	return nil
}

// resultsRows hands over the rows of the results file at path as it is
// read (reports.FileRows), counting in n the rows of the last pass; a
// file that is not one is bad input, as scanResults has it.
func resultsRows(path string, n *int) reports.Rows {
	return func(fn func(*reports.Row) error) error {
		*n = 0
		return resultsError(reports.ScanFile(path, func(r *reports.Row) error {
			*n++
			return fn(r)
		}))
	}
}

// manifestSignatures judges the incident signatures of the run m
// describes on rows, from those of its scenario files (or built-ins) whose
// text is still the one it ran (the manifest's hash); nil without them.
// It reads the rows of those scenarios only (workloads.ExpectedRows).
func manifestSignatures(m *reports.Manifest, rows reports.Rows) ([]reports.Signature, error) {
	if m == nil {
		return nil, nil
	}
	var args []string
	for _, s := range m.Scenarios {
		arg, hash, _ := strings.Cut(s, "=")
		if text, err := readScenario(arg); err == nil && shortHash(string(text)) == hash {
			args = append(args, arg)
		}
	}
	specs, err := loadScenarios(args, "")
	if err != nil {
		return nil, nil
	}
	judged, err := workloads.ExpectedRows(specs, rows)
	if err != nil {
		return nil, err
	}
	return workloads.Signatures(specs, judged), nil
}

// reportError is what writing a report failed of: the results file's own
// error when it does not read (resultsRows made it bad input; the rows are
// read as the report is written, so the writer wraps it), an unreadable
// trace as bad input, or the writing's error.
func reportError(err error) error {
	if ee, ok := errors.AsType[*exitError](err); ok {
		return ee
	}
	return traceInputError(err)
}

// traceInputError marks an unreadable trace as bad input; other errors
// (writing the report) stay as they are.
func traceInputError(err error) error {
	var te *reports.TraceError
	if errors.As(err, &te) {
		return badInput(fmt.Errorf("--trace: %w", te))
	}
	return err
}

// regularFile reports whether p names a regular file.
func regularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
