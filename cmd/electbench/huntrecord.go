package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/electbench/electbench/hunt"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/shrink"
)

// unshapingHuntFlags are left out of a hunt's key: they do not change
// what the search finds.
var unshapingHuntFlags = []string{"out", "history", "parallel"}

// huntRecord describes a hunt for its hunt.json: what it searched (its
// key: the base scenario's text and the flags that shape the search) and
// what it covered; the finding is added by the caller.
func huntRecord(cmd *cobra.Command, o huntOptions, args []string, opts hunt.Options, st hunt.Stats) reports.Hunt {
	h := reports.Hunt{ID: newRunID(), Time: time.Now().UTC().Truncate(time.Second), Version: versionString(),
		Commit: vcsCommit(), Args: append([]string{"hunt"}, args...),
		Property: opts.Property.String(), Seed: opts.Seed, Trials: st.Trials, States: st.States, Beyond: st.Beyond}
	searched := o.algos
	switch {
	case len(args) == 1:
		searched = args[0]
	case o.external.command != "" && !cmd.Flags().Changed("algo"):
		searched = cmp.Or(o.external.name, o.external.command)
	case o.variant != "":
		searched += " (" + o.variant + ")"
	}
	var kinds []string
	for _, k := range opts.Space.Kinds {
		kinds = append(kinds, k.Name)
	}
	h.Search = searched + " under " + cmp.Or(strings.Join(kinds, ","), "no fault") + " (heal " + opts.Space.Heal + ")"
	cmd.Flags().Visit(func(f *pflag.Flag) {
		h.Args = append(h.Args, "--"+f.Name+"="+f.Value.String())
	})
	var flags []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(unshapingHuntFlags, f.Name) {
			flags = append(flags, f.Name+"="+f.Value.String())
		}
	})
	slices.Sort(flags)
	base := "flags"
	if len(args) == 1 {
		if text, err := readScenario(args[0]); err == nil {
			base = args[0] + "\n" + string(text)
		}
	}
	h.Key = shortHash(base + "\n" + strings.Join(flags, "\n"))
	return h
}

// vcsCommit is the VCS revision electbench was built from, marked
// +modified when its tree was; "" when the build does not say.
func vcsCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	commit := ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value + commit
		case "vcs.modified":
			if s.Value == "true" {
				commit += "+modified"
			}
		}
	}
	return commit
}

// shrinkFinding picks the counterexample's failing trial (its violation,
// which tells one counterexample from another across nights) and, when
// asked, shrinks it and writes shrunk.yaml, trace.jsonl and story.html
// beside it. It returns the finding as a hunt record keeps it.
func shrinkFinding(ctx context.Context, cmd *cobra.Command, dir string, found *hunt.Finding, shrinkIt bool) (*reports.Finding, error) {
	path := filepath.Join(dir, "counterexample.yaml")
	f := &reports.Finding{Algorithm: found.Algorithm, Nodes: found.Nodes, Faults: found.Faults,
		Candidate: found.Trial, What: found.What, File: "counterexample.yaml"}
	// Read as hunt read it back (hunt.Run), from the working directory: a
	// node program's relative command resolves as it did in the search,
	// and shrink.Write rewrites it from dir.
	p, err := shrink.Pick(ctx, "counterexample.yaml", found.File)
	if err != nil {
		return nil, fmt.Errorf("picking the counterexample's trial %s: %w", path, err)
	}
	f.Violation = p.Violation.String()
	if !shrinkIt {
		return f, nil
	}
	res, err := shrink.Shrink(ctx, p, nil)
	if err != nil {
		return nil, fmt.Errorf("shrinking %s: %w", path, err)
	}
	if err := shrink.Verify(ctx, res, verifyReplays); err != nil && !res.Interrupted {
		return nil, fmt.Errorf("shrinking %s: %w", path, err)
	}
	if err := shrink.Write(dir, res); err != nil {
		return nil, err
	}
	f.Violation = res.Violation.String()
	f.Shrunk, f.Story, f.Trace = shrink.ShrunkFile, shrink.StoryFile, shrink.TraceFile
	f.ShrunkNodes, f.ShrunkFaults = res.Outcome.Row.Nodes, len(res.Scenario.Faults)
	if f.StoryLine, err = reports.StoryLine(reports.Story{Row: res.Outcome.Row, Trace: bytes.NewReader(res.Outcome.Trace), Arms: res.Arms}); err != nil {
		return nil, fmt.Errorf("telling the story of %s: %w", filepath.Join(dir, shrink.ShrunkFile), err)
	}
	out := cmd.OutOrStdout()
	ids := rowIDs(&res.Outcome.Row) // the record keeps the columns' text; the lines say p4 (id 17)
	fmt.Fprintf(out, "shrunk in %d runs to %s N=%d, %d faults, still failing %s: %s\n", res.Tried, f.Algorithm, f.ShrunkNodes, f.ShrunkFaults,
		reports.ForReader(f.Violation, ids), filepath.Join(dir, f.Shrunk))
	fmt.Fprintf(out, "story: %s (%s)\n", reports.ForReader(f.StoryLine, ids), filepath.Join(dir, f.Story))
	return f, nil
}

// recordHunt writes the hunt's record into its output directory and,
// with a history, stores it there and redraws the history's index.
func recordHunt(cmd *cobra.Command, dir, history string, h reports.Hunt) error {
	if err := reports.WriteHunt(dir, h); err != nil {
		return err
	}
	if history == "" {
		return nil
	}
	stored, err := reports.AddHuntToHistory(history, h, dir)
	if err != nil {
		return err
	}
	if err := reports.WriteHistoryIndex(history); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "history: stored hunt %s in %s\n", filepath.Base(stored), history)
	return nil
}

// newCounterexamples are the findings of the hunts whose output lies in
// NEW's results directory (a nightly job's hunts) that the base's hunts
// did not have: those of the base's directory, or with --base-history
// the last --last hunts of the same search stored in the history (NEW's
// own copies left out). newResults is NEW's results file.
func newCounterexamples(o compareOptions, args []string, newResults string) ([]reports.NewCounterexample, error) {
	newer, err := reports.HuntsIn(filepath.Dir(newResults))
	if err != nil {
		return nil, badInput(err)
	}
	if len(newer) == 0 {
		return nil, nil
	}
	var base []reports.Hunt
	k := 0
	if o.baseHistory != "" {
		base, err = reports.ReadHistoryHunts(o.baseHistory)
		k = o.last
	} else {
		var path string
		if path, err = resultsPath(args[0]); err == nil {
			base, err = reports.HuntsIn(filepath.Dir(path))
		}
	}
	if err != nil {
		return nil, badInput(err)
	}
	news := reports.NewCounterexamples(newer, base, k)
	for i := range news {
		news[i].Hunt.Dir = linkFrom(o.output, news[i].Hunt.Dir)
	}
	return news, nil
}

// linkFrom is the path by which a page written to page links to dir:
// relative to the page's directory; dir itself for standard output.
func linkFrom(page, dir string) string {
	if page == "" || page == "-" {
		return dir
	}
	rel, err := filepath.Rel(filepath.Dir(page), dir)
	if err != nil {
		return dir
	}
	return filepath.ToSlash(rel)
}

// runHunts are the hunts whose output lies in a run's results directory,
// their directories as a report written to page links them.
func runHunts(results, page string) ([]reports.Hunt, error) {
	hunts, err := reports.HuntsIn(filepath.Dir(results))
	if err != nil {
		return nil, badInput(err)
	}
	for i := range hunts {
		hunts[i].Dir = linkFrom(page, hunts[i].Dir)
	}
	return hunts, nil
}
