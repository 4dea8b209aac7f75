package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/internal/boundedio"
	"github.com/electbench/electbench/reports"
)

// runReportOptions are the flags of `electbench run` that concern what a
// run leaves behind beyond its results: the history it is added to.
type runReportOptions struct {
	history string
}

func (r *runReportOptions) bind(f *pflag.FlagSet) {
	f.StringVar(&r.history, "history", "", "also store this run (results and a manifest) under DIR/<sequence>-<time>/ and update DIR/index.html")
}

// unshapingFlags are left out of the configuration hash that tells
// comparable runs apart: they do not change the results, or (the seed) the
// manifest records them apart, since nightly runs vary it on purpose.
var unshapingFlags = []string{"out", "format", "parallel", "resume", "trace", "history", "seed"}

// finish writes what follows the summary: report.html when the formats ask
// for it (with the trace, when the run kept one), and the history entry.
func (r *runReportOptions) finish(cmd *cobra.Command, o runOptions, args, formats []string, rows []reports.Row) error {
	results := filepath.Join(o.out, reports.ResultsCSV)
	if slices.Contains(formats, "html") {
		opt := reports.HTMLOptions{Source: results, Generator: "electbench " + versionString(), Faults: reports.FaultWindows}
		if o.trace != "" {
			f, err := os.Open(o.trace)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			defer f.Close()
			opt.Trace, opt.TraceName = f, o.trace
		}
		if err := reports.WriteHTMLFile(filepath.Join(o.out, reports.ReportHTML), rows, opt); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if r.history == "" {
		return nil
	}
	m := newManifest(cmd, o.seed, rows, args)
	run, err := reports.AddToHistory(r.history, m, results)
	if err != nil {
		return err
	}
	if err := reports.WriteHistoryIndex(r.history); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "history: stored run %s in %s\n", run.Name, r.history)
	return nil
}

// newManifest describes this run for the history: build, machine, and the
// flags that shape the results.
func newManifest(cmd *cobra.Command, seed uint64, rows []reports.Row, scenarioArgs []string) reports.Manifest {
	m := reports.Manifest{Version: versionString(), Seed: seed, Rows: len(rows),
		Time: time.Now().UTC().Truncate(time.Second), Machine: machine()}
	var names []string
	for _, r := range rows {
		if !slices.Contains(names, r.Scenario) {
			names = append(names, r.Scenario)
		}
	}
	m.Scenario = strings.Join(names, ",")
	// A scenario is identified by its text: editing a file changes the
	// configuration even when its name stays.
	if len(scenarioArgs) == 0 && !slices.Contains(names, "adhoc") {
		scenarioArgs = []string{"default"} // the bare run
	}
	for _, a := range scenarioArgs {
		text, err := boundedio.ReadFile(a, chaos.MaxFileSize, "scenario file")
		if err != nil {
			var ok bool
			if text, ok = chaos.Builtin(a); !ok {
				continue
			}
		}
		m.Scenarios = append(m.Scenarios, a+"="+shortHash(string(text)))
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				m.Commit = s.Value + m.Commit
			case "vcs.modified":
				if s.Value == "true" {
					m.Commit += "+modified"
				}
			}
		}
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(unshapingFlags, f.Name) {
			m.Flags = append(m.Flags, f.Name+"="+f.Value.String())
		}
	})
	slices.Sort(m.Flags)
	m.FlagHash = shortHash(m.Scenario + "\n" + strings.Join(m.Scenarios, "\n") + "\n" + strings.Join(m.Flags, "\n"))
	mc := m.Machine
	m.Fingerprint = shortHash(fmt.Sprintf("%s/%s/%d/%s/%s", mc.OS, mc.Arch, mc.CPUs, mc.CPU, mc.GoVersion))
	return m
}

func machine() reports.Machine {
	mc := reports.Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				mc.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	return mc
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}
