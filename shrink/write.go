package shrink

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// The files a shrink writes under its output directory.
const (
	ShrunkFile = "shrunk.yaml" // the smallest scenario, with its trace-hash
	TraceFile  = "trace.jsonl" // its trial's trace, as run --trace writes it
	StoryFile  = "story.html"  // the fault story
)

// Write writes the shrunk scenario, its trace and its fault story under
// dir (made if need be): the trace's sha256 is the scenario's trace-hash.
func Write(dir string, r *Result) error {
	sc, err := clone(r.Scenario)
	if err != nil {
		return err
	}
	if err := relocate(sc, filepath.Dir(r.Scenario.File), dir); err != nil {
		return err
	}
	file, err := chaos.Format(sc)
	if err != nil {
		return err
	}
	var story bytes.Buffer
	row := r.Outcome.Row
	ids, _ := workloads.ArrangementIDs(row.Arrangement, row.Nodes, row.Seed)
	err = reports.WriteStory(&story, reports.Story{
		Name: r.Scenario.Name, File: file, Row: row,
		Failures: []string{r.Violation.String()}, Trace: bytes.NewReader(r.Outcome.Trace), IDs: ids, Arms: r.Arms,
	})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shrink output: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{ShrunkFile, file}, {TraceFile, r.Outcome.Trace}, {StoryFile, story.Bytes()}} {
		if err := os.WriteFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("shrink output: %w", err)
		}
	}
	return nil
}

// relocate rewrites the relative paths of a node program's command
// (those naming a file in from, the original file's directory, from which
// they were resolved) as paths from to, where the shrunk file is written:
// the shrunk file then runs the same program.
func relocate(sc *chaos.Scenario, from, to string) error {
	for i := range sc.Algorithms {
		cmd := sc.Algorithms[i].Command
		for j, w := range cmd {
			if filepath.IsAbs(w) {
				continue
			}
			if _, err := os.Stat(filepath.Join(from, w)); err != nil {
				continue // a word, or a program on the PATH
			}
			absFrom, err := filepath.Abs(filepath.Join(from, w))
			if err != nil {
				return fmt.Errorf("shrink output: %w", err)
			}
			absTo, err := filepath.Abs(to)
			if err != nil {
				return fmt.Errorf("shrink output: %w", err)
			}
			rel, err := filepath.Rel(absTo, absFrom)
			if err != nil {
				rel = absFrom
			}
			cmd[j] = rel
		}
	}
	return nil
}
