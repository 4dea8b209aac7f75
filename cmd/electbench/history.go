package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/internal/boundedio"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
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
// for it (with the trace, when the run kept one, and the expectations that
// failed over trials, and the incident signatures judged), the results directory's
// manifest with its row count, and the history entry.
func (r *runReportOptions) finish(cmd *cobra.Command, o runOptions, m reports.Manifest, formats []string, rows reports.Rows, trials int, fails []workloads.Failure, sigs []reports.Signature) error {
	results := filepath.Join(o.out, reports.ResultsCSV)
	if slices.Contains(formats, "html") {
		opt := htmlOptions(results, &m)
		opt.Signatures = sigs
		for _, f := range fails {
			if f.Trial < 0 { // over trials; the per-trial ones are in the expect column
				opt.Expectations = append(opt.Expectations, f.String())
			}
		}
		if o.trace != "" {
			f, err := os.Open(o.trace)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			defer f.Close()
			opt.Trace, opt.TraceName = f, o.trace
			opt.Explore = exploreCommand(o.trace)
		}
		if err := reports.WriteHTMLFile(filepath.Join(o.out, reports.ReportHTML), rows, opt); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	m.Rows = trials
	if err := reports.WriteManifest(o.out, m); err != nil {
		return err
	}
	return storeHistory(cmd, r.history, m, results)
}

// checkHistoryDir refuses, before anything runs, a --history that cannot
// be a history: an existing path that is not a directory. Without it a run
// stored its results and then failed on the history.
func checkHistoryDir(dir string) error {
	if dir == "" {
		return nil
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return badInputf("--history %s: not a directory (a history is a directory of stored runs)", dir)
	}
	return nil
}

// storeHistory adds a run (its manifest and results) to the history in
// dir and rewrites the history's index; nothing when dir is "".
func storeHistory(cmd *cobra.Command, dir string, m reports.Manifest, results string) error {
	if dir == "" {
		return nil
	}
	run, err := reports.AddToHistory(dir, m, results)
	if err != nil {
		return err
	}
	if err := reports.WriteHistoryIndex(dir); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "history: stored run %s in %s\n", run.Name, dir)
	return nil
}

// newManifest describes this run for its results directory and the
// history: build, machine, the plan (its canonical form and hash, and each
// scenario's seed), the scenario texts and the flags that shape the
// results.
func newManifest(cmd *cobra.Command, seed uint64, specs []*workloads.Spec, scenarioArgs []string) reports.Manifest {
	m := reports.Manifest{Version: versionString(), Seed: seed,
		Time: time.Now().UTC().Truncate(time.Second), Machine: machine(), RunID: newRunID()}
	var names []string
	for _, s := range specs {
		if !slices.Contains(names, s.Scenario) {
			names = append(names, s.Scenario)
		}
		m.Seeds = append(m.Seeds, s.Seed)
		if s.Description != "" {
			if m.Descriptions == nil {
				m.Descriptions = map[string]string{}
			}
			m.Descriptions[s.Scenario] = s.Description
		}
	}
	m.Scenario = strings.Join(names, ",")
	m.Plan = strings.Split(strings.TrimSuffix(workloads.Canonical(specs), "\n"), "\n")
	m.PlanHash = workloads.PlanHash(specs)
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
	m.Commit = vcsCommit()
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(unshapingFlags, f.Name) {
			m.Flags = append(m.Flags, f.Name+"="+f.Value.String())
		}
	})
	slices.Sort(m.Flags)
	// Whether a flag was typed is kept apart from its value: a typed value
	// equal to the default still overrides a scenario file's (--seed 1 on
	// a file of seed 9), and a replay must repeat it.
	cmd.Flags().Visit(func(f *pflag.Flag) { m.Typed = append(m.Typed, f.Name) })
	slices.Sort(m.Typed)
	m.FlagHash = shortHash(m.Scenario + "\n" + strings.Join(m.Scenarios, "\n") + "\n" + strings.Join(m.Flags, "\n"))
	mc := m.Machine
	m.Fingerprint = shortHash(fmt.Sprintf("%s/%s/%d/%s/%s", mc.OS, mc.Arch, mc.CPUs, mc.CPU, mc.GoVersion))
	return m
}

// newRunID names one run uniquely: its start time and random bits.
func newRunID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return time.Now().UTC().Format("20060102T150405.000000000Z") + "-" + hex.EncodeToString(b[:])
}

// checkResume refuses to resume into a directory written by another plan
// or seed, naming what differs, before anything is written. A directory
// without a manifest (written before manifests existed) is checked row by
// row: every row must be one of the plan's trials. The plan's keys are
// made only then (a 470,000-trial plan's were 64 MB, made for nothing when
// the manifest answers), and the rows read as a stream.
func checkResume(dir string, m *reports.Manifest, plan []workloads.Trial) error {
	old, ok, err := reports.ReadManifest(dir)
	if err != nil {
		return badInputf("--resume: %w", err)
	}
	if ok {
		if old.PlanHash != m.PlanHash {
			what := ""
			for i := range max(len(old.Plan), len(m.Plan)) {
				a, b := lineAt(old.Plan, i), lineAt(m.Plan, i)
				if a != b {
					what = fmt.Sprintf(": %q there, %q here", a, b)
					break
				}
			}
			return badInputf("--resume %s: the directory holds another experiment; the plan differs (hash %s there, %s here)%s", dir, old.PlanHash, m.PlanHash, what)
		}
		if !slices.Equal(old.Seeds, m.Seeds) {
			return badInputf("--resume %s: the directory holds another experiment; the seed differs: %v there, %v here", dir, seedsText(old.Seeds), seedsText(m.Seeds))
		}
		// The resumed run is the same run: it keeps its identity.
		m.RunID, m.Time = old.RunID, old.Time
		return nil
	}
	want := reports.NewKeySet()
	for _, t := range plan {
		want.Add(t.Key())
	}
	var stray error
	// A file that does not read is NewWriter's to report.
	_ = reports.ScanFile(filepath.Join(dir, reports.ResultsCSV), func(r *reports.Row) error {
		if !want.Has(r.Key()) {
			stray = badInputf("--resume %s: the directory holds another experiment: its row %s/%s %s N=%d trial %d (seed %d) is not a trial of this plan",
				dir, r.Algorithm, r.Variant, r.Scenario, r.Nodes, r.Trial, r.Seed)
			return stray
		}
		return nil
	})
	return stray
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(nothing)"
}

func seedsText(seeds []uint64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(s, ",")
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
