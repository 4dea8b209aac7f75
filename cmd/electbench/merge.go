package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

func init() { commands = append(commands, newMergeCmd) }

// mergeOptions are the flags of `electbench merge`.
type mergeOptions struct {
	out     string
	formats string
	history string
}

func newMergeCmd() *cobra.Command {
	o := mergeOptions{formats: "csv,html"}
	cmd := &cobra.Command{
		Use:   "merge SHARD-DIR... --out DIR",
		Short: "Put the shards of a run (run --shard K/M) together as the whole run would have written it",
		Long: `Put together the results directories of the shards of one run (each written
by electbench run ... --shard K/M, on any machine, in any order): it checks
that their manifests belong to one plan, seed and electbench version and
cover it exactly once, and that every shard's rows are exactly its share of
the plan, in order, each with the trial and seed the plan derives (the keys
its manifest records), then writes results.csv in plan order and computes
summary.csv, report.html and, with --history, the history entry from the
rows — byte-identical to the rows and summary of the run unsharded.

A missing, repeated, incomplete or foreign shard, and the first row out of
place (swapped, of another seed or shard, duplicated), is named and nothing
is written (exit 2); a failed shard is run again alone, with its --shard K/M
(and --resume to keep its finished trials).`,
		Args: usageArgs(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(cmd, o, args) },
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", "", "output directory for the merged run (required; must hold no results yet)")
	f.StringVar(&o.formats, "format", o.formats, "output formats, comma-separated: csv, json, html (report.html)")
	f.StringVar(&o.history, "history", "", "also store the merged run under DIR/<sequence>-<time>/ and update DIR/index.html")
	return cmd
}

// shardDir is one shard's results directory, as merge reads it.
type shardDir struct {
	dir   string
	m     reports.Manifest
	shard workloads.Shard
	idx   []int // its trials' plan indices, ascending
}

func runMerge(cmd *cobra.Command, o mergeOptions, dirs []string) error {
	if o.out == "" {
		return badInputf("merge: --out DIR is required")
	}
	if err := checkHistoryDir(o.history); err != nil {
		return err
	}
	formats, err := parseFormats(o.formats)
	if err != nil {
		return badInput(err)
	}
	if _, err := os.Stat(filepath.Join(o.out, reports.ResultsCSV)); err == nil {
		return badInputf("merge --out %s: it holds results already; name a new directory", o.out)
	}
	shards, err := readShards(dirs)
	if err != nil {
		return err
	}
	// Every shard's rows, checked, then placed at their plan indices: the
	// plan's size is allocated only once the rows read fill it, so a
	// manifest cannot make merge allocate for trials nobody ran.
	ref := shards[0]
	rowsOf := make([][]reports.Row, len(shards))
	for k, s := range shards {
		rows, err := reports.ReadFile(filepath.Join(s.dir, reports.ResultsCSV))
		if err != nil {
			var pe *reports.ParseError
			if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) {
				return badInputf("merge: %s: %w", s.dir, err)
			}
			return err
		}
		if err := s.checkRows(rows); err != nil {
			return err
		}
		if len(rows) != len(s.idx) {
			return badInputf("merge: %s: shard %s is incomplete: %d of its %d trials; run it again with --shard %s --resume",
				s.dir, s.shard, len(rows), len(s.idx), s.shard)
		}
		rowsOf[k] = rows
	}
	merged := make([]reports.Row, ref.m.PlanTrials)
	for k, s := range shards {
		for i, r := range rowsOf[k] {
			merged[s.idx[i]] = r
		}
	}

	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	w, err := reports.NewWriter(o.out, formats, reports.WriterOptions{})
	if err != nil {
		return err
	}
	for _, r := range merged {
		if err := w.Write(r); err != nil {
			w.Close()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	// Read back, as run does (finishRun): the summary and the report come
	// from the rows as written, read as a stream.
	rows := reports.FileRows(filepath.Join(o.out, reports.ResultsCSV))
	m := ref.m
	rb, err := readResultsBack(rows, replayCommand(m))
	if err != nil {
		return err
	}
	if err := reports.WriteSummaryFiles(o.out, formats, rb.sum); err != nil {
		return err
	}
	// The merged run's manifest is the plan's, as one machine's run would
	// have written it: no shard, a run of its own. Report, manifest and
	// history entry are written as run writes them.
	m.Shard, m.ShardTrials, m.PlanTrials = "", "", 0
	m.RunID, m.Time = newRunID(), time.Now().UTC().Truncate(time.Second)
	if err := (&runReportOptions{history: o.history}).finish(cmd, runOptions{out: o.out}, m, formats, rows, rb.tally.Rows, nil, nil); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if err := writeRunTable(out, rb, "table"); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nmerged %d shards: %d trials; results in %s\n", len(shards), rb.tally.Rows, o.out)
	return nil
}

// readShards reads and checks the shards' manifests: one plan, seed,
// version and shard count, every part exactly once, their trials
// partitioning the plan. Errors name the directory at fault.
func readShards(dirs []string) ([]shardDir, error) {
	var shards []shardDir
	for _, d := range dirs {
		m, ok, err := reports.ReadManifest(d)
		switch {
		case err != nil:
			return nil, badInputf("merge: %s: %w", d, err)
		case !ok:
			return nil, badInputf("merge: %s: no %s: not the results directory of a shard", d, "manifest.json")
		case m.Shard == "":
			return nil, badInputf("merge: %s holds a whole run, not a shard (run --shard K/M)", d)
		}
		s, err := workloads.ParseShard(m.Shard)
		if err != nil {
			return nil, badInputf("merge: %s: manifest: %w", d, err)
		}
		// Bounded before ParseIndexRanges and merge allocate for it.
		if m.PlanTrials < 1 || m.PlanTrials > reports.MaxPlanTrials {
			return nil, badInputf("merge: %s: manifest: plan_trials %d: want 1..%d", d, m.PlanTrials, reports.MaxPlanTrials)
		}
		idx, err := workloads.ParseIndexRanges(m.ShardTrials, m.PlanTrials)
		if err != nil {
			return nil, badInputf("merge: %s: manifest: %w", d, err)
		}
		if len(m.ShardKeys) != reports.KeyHashLen*len(idx) {
			return nil, badInputf("merge: %s: manifest: shard_keys holds %d bytes, want %d for its %d trials (a shard written by an older electbench: run it again)",
				d, len(m.ShardKeys), reports.KeyHashLen*len(idx), len(idx))
		}
		shards = append(shards, shardDir{dir: d, m: m, shard: s, idx: idx})
	}
	ref := shards[0]
	byK := map[int]string{}
	for _, s := range shards {
		switch {
		case s.m.PlanHash != ref.m.PlanHash:
			return nil, badInputf("merge: %s is a shard of another plan (plan hash %s; %s has %s)", s.dir, s.m.PlanHash, ref.dir, ref.m.PlanHash)
		case !slices.Equal(s.m.Seeds, ref.m.Seeds) || s.m.Seed != ref.m.Seed:
			return nil, badInputf("merge: %s ran another seed (%s; %s ran %s)", s.dir, seedsText(s.m.Seeds), ref.dir, seedsText(ref.m.Seeds))
		case s.shard.M != ref.shard.M:
			return nil, badInputf("merge: %s is shard %s, %s is of %d shards", s.dir, s.shard, ref.dir, ref.shard.M)
		case s.m.PlanTrials != ref.m.PlanTrials:
			return nil, badInputf("merge: %s counts %d trials in the plan, %s %d", s.dir, s.m.PlanTrials, ref.dir, ref.m.PlanTrials)
		case s.m.Version != ref.m.Version:
			return nil, badInputf("merge: %s was run by electbench %s, %s by %s: one build must run every shard", s.dir, s.m.Version, ref.dir, ref.m.Version)
		}
		if other, dup := byK[s.shard.K]; dup {
			return nil, badInputf("merge: shard %s twice: %s and %s", s.shard, other, s.dir)
		}
		byK[s.shard.K] = s.dir
	}
	var missing []string
	for k := 1; k <= ref.shard.M; k++ {
		if _, ok := byK[k]; !ok {
			missing = append(missing, strconv.Itoa(k)+"/"+strconv.Itoa(ref.shard.M))
		}
	}
	if len(missing) > 0 {
		return nil, badInputf("merge: shard%s %s missing", pluralS(len(missing)), strings.Join(missing, ", "))
	}
	seen := make([]string, ref.m.PlanTrials)
	for _, s := range shards {
		for _, i := range s.idx {
			if seen[i] != "" {
				return nil, badInputf("merge: plan trial %d is in both %s and %s", i, seen[i], s.dir)
			}
			seen[i] = s.dir
		}
	}
	for i, d := range seen {
		if d == "" {
			return nil, badInputf("merge: plan trial %d is in no shard", i)
		}
	}
	return shards, nil
}

// checkRows checks that rows are the shard's share of the plan, in order:
// row i must have the key (trial identity and seed) the plan gives the
// shard's i-th trial. The first row that does not is named by its line.
func (s shardDir) checkRows(rows []reports.Row) error {
	path := filepath.Join(s.dir, reports.ResultsCSV)
	for i, r := range rows {
		line := i + 2 // after the header
		if i >= len(s.idx) {
			return badInputf("merge: %s:%d: a row beyond shard %s's %d trials (%s): a duplicated or foreign trial", path, line, s.shard, len(s.idx), r.Key())
		}
		want := s.m.ShardKeys[i*reports.KeyHashLen : (i+1)*reports.KeyHashLen]
		if r.Key().KeyHash() != want {
			return badInputf("merge: %s:%d: not the trial the plan places there (plan trial %d), but %s: rows swapped, of another seed, or of another shard",
				path, line, s.idx[i], r.Key())
		}
	}
	return nil
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
