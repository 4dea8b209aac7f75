package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
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
	// f is its results.csv, open from the checking pass to the merging
	// one, which reads the same file again; size and mod are what the
	// checking pass found, for the merging pass to see it unchanged.
	f    *os.File
	size int64
	mod  time.Time
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
	m, nShards, err := mergeShards(o.out, formats, dirs)
	if err != nil {
		return err
	}
	// Read back, as run does (finishRun): the summary and the report come
	// from the rows as written, read as a stream.
	rows := reports.FileRows(filepath.Join(o.out, reports.ResultsCSV))
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
	fmt.Fprintf(out, "\nmerged %d shards: %d trials; results in %s\n", nShards, rb.tally.Rows, o.out)
	return nil
}

// mergeShards checks the shards in dirs (their manifests, then every row)
// and writes their rows to out's results files in plan order. It returns
// the plan's manifest, as the first shard holds it, and the shards' count.
func mergeShards(out string, formats, dirs []string) (reports.Manifest, int, error) {
	shards, owner, err := readShards(dirs)
	if err != nil {
		return reports.Manifest{}, 0, err
	}
	defer func() {
		for _, s := range shards {
			if s.f != nil {
				s.f.Close()
			}
		}
	}()
	// Every shard's rows are checked in a first pass, read as a stream,
	// before out is made: a bad or missing row is found, wherever it is,
	// with nothing written. The second pass merges the streams. One pass
	// into a temporary directory beside --out would save a decoding of
	// each row (400,000 rows: about 1 s of 7.6 s user; the first pass is
	// 2.4 s, its key hashes 1.5 s of that) but leave that directory
	// behind a killed merge.
	for k := range shards {
		if err := shards[k].check(); err != nil {
			return reports.Manifest{}, 0, err
		}
	}
	if err := writeMerged(out, formats, shards, owner); err != nil {
		return reports.Manifest{}, 0, err
	}
	return shards[0].m, len(shards), nil
}

// check reads the shard's results.csv as a stream (one row held), checking
// every row (checkRow) and that none is missing, and keeps the file open
// for the merge. As when the rows were read whole before the checks, a
// file that does not parse is named for that before any row out of place
// in it.
func (s *shardDir) check() error {
	path := filepath.Join(s.dir, reports.ResultsCSV)
	f, err := os.Open(path)
	if err != nil {
		return mergeReadError(s.dir, err)
	}
	s.f = f
	n := 0
	var bad error // the first row out of place
	err = reports.ScanCSV(f, func(r *reports.Row) error {
		if bad == nil {
			bad = s.checkRow(path, n, r)
		}
		n++
		return nil
	})
	if err != nil {
		return mergeReadError(s.dir, fmt.Errorf("%s: %w", path, err))
	}
	if bad != nil {
		return bad
	}
	if n != len(s.idx) {
		return badInputf("merge: %s: shard %s is incomplete: %d of its %d trials; run it again with --shard %s --resume",
			s.dir, s.shard, n, len(s.idx), s.shard)
	}
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("merge: %s: %w", path, err)
	}
	s.size, s.mod = st.Size(), st.ModTime()
	return nil
}

// mergeReadError makes a results file that is missing or does not parse
// bad input, naming the shard's directory.
func mergeReadError(dir string, err error) error {
	var pe *reports.ParseError
	if errors.As(err, &pe) || errors.Is(err, fs.ErrNotExist) {
		return badInputf("merge: %s: %w", dir, err)
	}
	return err
}

// writeMerged writes the checked shards' rows to out's results files in
// plan order: plan trial i is the next row of shard owner[i]-1. Each
// shard's file is read again as a stream in its own reused row, so merge
// holds a row a shard, not the run. A shard whose file changed since it
// was checked fails the merge, and what was written is removed.
func writeMerged(out string, formats []string, shards []shardDir, owner []uint16) error {
	for _, s := range shards {
		st, err := s.f.Stat()
		if err == nil && (st.Size() != s.size || !st.ModTime().Equal(s.mod)) {
			err = errors.New("changed since merge checked it")
		}
		if err == nil {
			_, err = s.f.Seek(0, io.SeekStart)
		}
		if err != nil {
			return fmt.Errorf("merge: %s: %w", s.f.Name(), err)
		}
	}
	_, err := os.Stat(out)
	made := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	w, err := reports.NewWriter(out, formats, reports.WriterOptions{})
	if err != nil {
		return err
	}
	err = mergeRows(w, shards, owner)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(filepath.Join(out, reports.ResultsCSV))
		os.Remove(filepath.Join(out, reports.ResultsJSONL))
		if made {
			os.Remove(out)
		}
	}
	return err
}

// errMergeStopped ends a shard's scan that the merge no longer reads.
var errMergeStopped = errors.New("merge stopped")

// mergeRows queues to w each plan trial's row, taken from the stream of
// the shard that owns it, and checks that every stream ends with its
// shard's last trial.
func mergeRows(w *reports.Writer, shards []shardDir, owner []uint16) error {
	next := make([]func() (*reports.Row, bool), len(shards))
	errs := make([]error, len(shards))
	stops := make([]func(), len(shards))
	defer func() {
		for _, stop := range stops {
			if stop != nil {
				stop()
			}
		}
	}()
	for k, s := range shards {
		next[k], stops[k] = iter.Pull(func(yield func(*reports.Row) bool) {
			errs[k] = reports.ScanCSV(s.f, func(r *reports.Row) error {
				if !yield(r) {
					return errMergeStopped
				}
				return nil
			})
		})
	}
	// The file checked is read again: a row more or less, or one that
	// no longer parses, is a file changed in between.
	changed := func(k int) error {
		if errs[k] != nil {
			return fmt.Errorf("merge: %s: changed since merge checked it: %w", shards[k].f.Name(), errs[k])
		}
		return fmt.Errorf("merge: %s: changed since merge checked it: not the %d rows checked", shards[k].f.Name(), len(shards[k].idx))
	}
	for _, o := range owner {
		k := int(o) - 1
		r, ok := next[k]()
		if !ok {
			return changed(k)
		}
		if err := w.Queue(*r); err != nil {
			return err
		}
	}
	for k := range shards {
		if _, ok := next[k](); ok || errs[k] != nil {
			return changed(k)
		}
	}
	return nil
}

// readShards reads and checks the shards' manifests: one plan, seed,
// version and shard count, every part exactly once, their trials
// partitioning the plan. Errors name the directory at fault.
//
// It returns, for each plan trial, 1 + the index in shards of the shard
// that holds it: the order merge takes the shards' rows in.
func readShards(dirs []string) ([]shardDir, []uint16, error) {
	var shards []shardDir
	for _, d := range dirs {
		m, ok, err := reports.ReadManifest(d)
		switch {
		case err != nil:
			return nil, nil, badInputf("merge: %s: %w", d, err)
		case !ok:
			return nil, nil, badInputf("merge: %s: no %s: not the results directory of a shard", d, "manifest.json")
		case m.Shard == "":
			return nil, nil, badInputf("merge: %s holds a whole run, not a shard (run --shard K/M)", d)
		}
		s, err := workloads.ParseShard(m.Shard)
		if err != nil {
			return nil, nil, badInputf("merge: %s: manifest: %w", d, err)
		}
		// Bounded before ParseIndexRanges and merge allocate for it.
		if m.PlanTrials < 1 || m.PlanTrials > reports.MaxPlanTrials {
			return nil, nil, badInputf("merge: %s: manifest: plan_trials %d: want 1..%d", d, m.PlanTrials, reports.MaxPlanTrials)
		}
		idx, err := workloads.ParseIndexRanges(m.ShardTrials, m.PlanTrials)
		if err != nil {
			return nil, nil, badInputf("merge: %s: manifest: %w", d, err)
		}
		if len(m.ShardKeys) != reports.KeyHashLen*len(idx) {
			return nil, nil, badInputf("merge: %s: manifest: shard_keys holds %d bytes, want %d for its %d trials (a shard written by an older electbench: run it again)",
				d, len(m.ShardKeys), reports.KeyHashLen*len(idx), len(idx))
		}
		shards = append(shards, shardDir{dir: d, m: m, shard: s, idx: idx})
	}
	ref := shards[0]
	byK := map[int]string{}
	for _, s := range shards {
		switch {
		case s.m.PlanHash != ref.m.PlanHash:
			return nil, nil, badInputf("merge: %s is a shard of another plan (plan hash %s; %s has %s)", s.dir, s.m.PlanHash, ref.dir, ref.m.PlanHash)
		case !slices.Equal(s.m.Seeds, ref.m.Seeds) || s.m.Seed != ref.m.Seed:
			return nil, nil, badInputf("merge: %s ran another seed (%s; %s ran %s)", s.dir, seedsText(s.m.Seeds), ref.dir, seedsText(ref.m.Seeds))
		case s.shard.M != ref.shard.M:
			return nil, nil, badInputf("merge: %s is shard %s, %s is of %d shards", s.dir, s.shard, ref.dir, ref.shard.M)
		case s.m.PlanTrials != ref.m.PlanTrials:
			return nil, nil, badInputf("merge: %s counts %d trials in the plan, %s %d", s.dir, s.m.PlanTrials, ref.dir, ref.m.PlanTrials)
		case s.m.Version != ref.m.Version:
			return nil, nil, badInputf("merge: %s was run by electbench %s, %s by %s: one build must run every shard", s.dir, s.m.Version, ref.dir, ref.m.Version)
		}
		if other, dup := byK[s.shard.K]; dup {
			return nil, nil, badInputf("merge: shard %s twice: %s and %s", s.shard, other, s.dir)
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
		return nil, nil, badInputf("merge: shard%s %s missing", pluralS(len(missing)), strings.Join(missing, ", "))
	}
	owner := make([]uint16, ref.m.PlanTrials) // MaxShards fits
	for k, s := range shards {
		for _, i := range s.idx {
			if owner[i] != 0 {
				return nil, nil, badInputf("merge: plan trial %d is in both %s and %s", i, shards[owner[i]-1].dir, s.dir)
			}
			owner[i] = uint16(k + 1)
		}
	}
	for i, k := range owner {
		if k == 0 {
			return nil, nil, badInputf("merge: plan trial %d is in no shard", i)
		}
	}
	return shards, owner, nil
}

// checkRow checks that row i of the shard's results file (at path) is the
// shard's i-th trial of the plan: it has the key (trial identity and seed)
// the plan gives it. A row that is not is named by its line.
func (s shardDir) checkRow(path string, i int, r *reports.Row) error {
	line := i + 2 // after the header
	if i >= len(s.idx) {
		return badInputf("merge: %s:%d: a row beyond shard %s's %d trials (%s): a duplicated or foreign trial", path, line, s.shard, len(s.idx), r.Key())
	}
	want := s.m.ShardKeys[i*reports.KeyHashLen : (i+1)*reports.KeyHashLen]
	if r.Key().KeyHash() != want {
		return badInputf("merge: %s:%d: not the trial the plan places there (plan trial %d), but %s: rows swapped, of another seed, or of another shard",
			path, line, s.idx[i], r.Key())
	}
	return nil
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
