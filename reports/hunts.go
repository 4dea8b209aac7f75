package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A hunt (electbench hunt) records its outcome as hunt.json in its output
// directory, beside the counterexample and the shrunk files it wrote; with
// --history DIR the same record and files are stored under DIR/hunts/
// NNNNNN-TIME/, apart from the runs, so that nothing that reads the runs
// of a history sees them. A nightly job writes its hunts' output
// directories inside the run's results directory, so that compare and
// report find tonight's hunts beside tonight's results.

// Files and directories of hunt records.
const (
	HuntRecord   = "hunt.json"
	HistoryHunts = "hunts"
)

// Hunt is one hunt's outcome.
type Hunt struct {
	ID      string    `json:"id"` // unique per hunt: tells NEW's own copy in a history
	Time    time.Time `json:"time"`
	Version string    `json:"version"`
	Commit  string    `json:"commit,omitempty"`
	// Key is a short hash of the base scenario and the flags that shape
	// the search: hunts of the same search share it, and a finding is
	// compared with the earlier hunts of its key only.
	Key      string   `json:"key"`
	Args     []string `json:"args"`   // the command line, for people
	Search   string   `json:"search"` // the algorithms searched
	Property string   `json:"property"`
	Seed     uint64   `json:"seed"`
	Trials   int      `json:"trials"` // candidates run
	States   int      `json:"states"` // distinct abstract states they reached
	Beyond   int      `json:"beyond_model"`
	Found    *Finding `json:"counterexample,omitempty"`

	// Dir is the directory the record was read from (not stored).
	Dir string `json:"-"`
}

// Finding is the counterexample a hunt found, and its shrunk form when
// the hunt shrank it. Paths are relative to the record's directory.
type Finding struct {
	Algorithm string `json:"algorithm"` // name/variant
	Nodes     int    `json:"nodes"`
	Faults    int    `json:"faults"`
	Candidate int    `json:"candidate"` // its number in the search, from 1
	// Violation is the property violated, for safety with the checker's
	// kind ("safety (wrong-leader)"): with Algorithm, what tells one
	// counterexample from another across nights.
	Violation    string `json:"violation"`
	What         string `json:"what"` // the expectation failed and what the trial did instead
	File         string `json:"file"` // counterexample.yaml
	Shrunk       string `json:"shrunk,omitempty"`
	Story        string `json:"story,omitempty"`
	Trace        string `json:"trace,omitempty"`
	ShrunkNodes  int    `json:"shrunk_nodes,omitempty"`
	ShrunkFaults int    `json:"shrunk_faults,omitempty"`
	StoryLine    string `json:"story_line,omitempty"` // the fault story in one line (StoryLine)
}

// Same reports whether two findings are the same counterexample: the same
// algorithm violating the same property the same way.
func (f *Finding) Same(g *Finding) bool {
	return f.Algorithm == g.Algorithm && f.Violation == g.Violation
}

// Files are the files of the finding that exist, relative to its record.
func (f *Finding) Files() []string {
	var out []string
	for _, p := range []string{f.File, f.Shrunk, f.Story, f.Trace} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Summary names the finding in one line, its shrunk file (or else its
// counterexample) at path dir/...: "raft/default safety (two-leaders),
// shrunk to N=3, 1 fault: DIR/shrunk.yaml".
func (f *Finding) Summary(dir string) string {
	if f.Shrunk != "" {
		return fmt.Sprintf("%s %s, shrunk to N=%d, %d fault%s: %s", f.Algorithm, f.Violation, f.ShrunkNodes, f.ShrunkFaults, plural(f.ShrunkFaults), filepath.Join(dir, f.Shrunk))
	}
	return fmt.Sprintf("%s %s, N=%d, %d fault%s: %s", f.Algorithm, f.Violation, f.Nodes, f.Faults, plural(f.Faults), filepath.Join(dir, f.File))
}

// WriteHunt writes h as dir/hunt.json, atomically.
func WriteHunt(dir string, h Hunt) error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("hunt record: %w", err)
	}
	return writeFileAtomic(dir, filepath.Join(dir, HuntRecord), func(out io.Writer) error {
		_, err := out.Write(append(b, '\n'))
		return err
	})
}

// ReadHunt reads dir/hunt.json; ok is false when there is none.
func ReadHunt(dir string) (h Hunt, ok bool, err error) {
	path := filepath.Join(dir, HuntRecord)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Hunt{}, false, nil
	}
	if err != nil {
		return Hunt{}, false, fmt.Errorf("hunt record: %w", err)
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return Hunt{}, false, fmt.Errorf("hunt record %s: %w", path, err)
	}
	h.Dir = dir
	return h, true, nil
}

// HuntsIn reads the hunt records in dir and its subdirectories one level
// down (a run's results directory whose hunts wrote their output inside
// it), in the order of their directories' names.
func HuntsIn(dir string) ([]Hunt, error) {
	var hunts []Hunt
	if h, ok, err := ReadHunt(dir); err != nil || ok {
		if ok {
			hunts = append(hunts, h)
		}
		return hunts, err
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hunt records: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") { // .incoming-*: not yet stored
			continue
		}
		h, ok, err := ReadHunt(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if ok {
			hunts = append(hunts, h)
		}
	}
	return hunts, nil
}

// ReadHistoryHunts lists the hunts stored in a history, oldest first.
func ReadHistoryHunts(history string) ([]Hunt, error) {
	hunts, err := HuntsIn(filepath.Join(history, HistoryHunts))
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return hunts, nil
}

// AddHuntToHistory stores a hunt's record and the files of its finding
// (read from dir, the hunt's output directory) under
// history/hunts/NNNNNN-TIME, which appears under its final name only once
// complete.
func AddHuntToHistory(history string, h Hunt, dir string) (string, error) {
	hunts := filepath.Join(history, HistoryHunts)
	if err := os.MkdirAll(hunts, 0o755); err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	old, err := ReadHistoryHunts(history)
	if err != nil {
		return "", err
	}
	seq := 1
	if len(old) > 0 {
		last, _ := strconv.Atoi(strings.SplitN(filepath.Base(old[len(old)-1].Dir), "-", 2)[0])
		seq = last + 1
	}
	name := fmt.Sprintf("%06d-%s", seq, h.Time.UTC().Format("20060102T150405Z"))
	tmp, err := os.MkdirTemp(hunts, ".incoming-*")
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	defer os.RemoveAll(tmp)
	if h.Found != nil {
		for _, f := range h.Found.Files() {
			if err := copyFile(filepath.Join(dir, f), filepath.Join(tmp, f)); err != nil {
				return "", fmt.Errorf("history: %w", err)
			}
		}
	}
	if err := WriteHunt(tmp, h); err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	final := filepath.Join(hunts, name)
	if err := os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	return final, nil
}

// NewCounterexample is a counterexample a hunt found that the earlier
// hunts of the same search did not.
type NewCounterexample struct {
	Hunt Hunt
	Path string // the hunt's directory, as the caller names it
}

func (n NewCounterexample) String() string {
	return "new counterexample: " + n.Hunt.Found.Summary(n.Path)
}

// NewCounterexamples are the findings of hunts that no hunt of base with
// the same key found among its last k (all when k ≤ 0), in the order of
// hunts. A base that never ran the search did not have the finding
// either. Hunts of base with the ID of one of hunts are left out: they
// are its own copies in the history.
func NewCounterexamples(hunts, base []Hunt, k int) []NewCounterexample {
	var out []NewCounterexample
	for _, h := range hunts {
		if h.Found == nil {
			continue
		}
		var earlier []Hunt
		for _, b := range base {
			if b.Key == h.Key && !slices.ContainsFunc(hunts, func(n Hunt) bool { return n.ID == b.ID }) {
				earlier = append(earlier, b)
			}
		}
		if k > 0 && len(earlier) > k {
			earlier = earlier[len(earlier)-k:]
		}
		if !slices.ContainsFunc(earlier, func(b Hunt) bool { return b.Found != nil && b.Found.Same(h.Found) }) {
			out = append(out, NewCounterexample{Hunt: h, Path: h.Dir})
		}
	}
	return out
}

// newestCounterexamples are, for each search of a history (a key), the
// finding of its newest hunt when no earlier hunt of the search found it.
func newestCounterexamples(hunts []Hunt) []NewCounterexample {
	var out []NewCounterexample
	for i, h := range hunts {
		if slices.ContainsFunc(hunts[i+1:], func(l Hunt) bool { return l.Key == h.Key }) {
			continue // not the newest of its search
		}
		out = append(out, NewCounterexamples([]Hunt{h}, hunts[:i], 0)...)
	}
	return out
}

// writeNewCounterexamples names, in a box at the top of a page, the
// counterexamples found that were not found before, each linked to its
// fault story (or its file): they fail the night.
func writeNewCounterexamples(p *page, news []NewCounterexample) {
	if len(news) == 0 {
		return
	}
	p.box("counterexamples", "verdict fail", func() {
		var items [][]run
		for _, n := range news {
			items = append(items, findingRuns(n.Hunt, "new counterexample: "))
		}
		p.list("", items)
	})
}

// findingRuns names a hunt's finding, its shrunk file and its one-line
// story, linked to its story page (or its counterexample without one).
func findingRuns(h Hunt, prefix string) []run {
	f := h.Found
	rs := []run{bold(prefix + f.Summary(h.Dir))}
	if f.StoryLine != "" {
		rs = append(rs, txt(" — "+f.StoryLine))
	}
	href, label := f.File, "the counterexample"
	if f.Story != "" {
		href, label = f.Story, "the fault story"
	}
	return append(rs, txt(" ("), link(pathJoin(h.Dir, href), label), txtf("; hunt %s, property %s, seed %d)", h.Search, h.Property, h.Seed))
}

// pathJoin joins a link's directory and file with slashes.
func pathJoin(dir, file string) string {
	if dir == "" {
		return file
	}
	return strings.TrimSuffix(filepath.ToSlash(dir), "/") + "/" + file
}

// historyHunts bounds the hunts the history page lists: the most recent.
const historyHunts = 200

// writeHistoryHunts lists the hunts of a history, newest first: what each
// searched, what it covered, what it found.
func writeHistoryHunts(p *page, hunts []Hunt) {
	p.h2("hunts", txt("Hunts"))
	if len(hunts) == 0 {
		p.note("No hunt stored (electbench hunt --history DIR stores one).")
		return
	}
	p.note("Each hunt's search, what it covered, and the counterexample it found, linked to its fault story; highlighted: a finding.")
	var rows [][]cell
	for i := len(hunts) - 1; i >= max(0, len(hunts)-historyHunts); i-- {
		h := hunts[i]
		found := textCell("nothing")
		if f := h.Found; f != nil {
			href := f.File
			if f.Story != "" {
				href = f.Story
			}
			found = linkCell(pathJoin(h.Dir, href), f.Summary(""))
			found.classes = "bad"
		}
		rows = append(rows, []cell{
			textCell(filepath.Base(h.Dir)), textCell(h.Time.UTC().Format(time.RFC3339)), textCell(shortCommit(h.Commit)),
			textCell(h.Search), textCell(h.Property), textCell(strconv.FormatUint(h.Seed, 10)), textCell(h.Key),
			intCell(h.Trials), intCell(h.States), found,
		})
	}
	p.tableID("hunts-table", "sortable", []string{"hunt", "time (UTC)", "commit", "searched", "property", "seed", "key", "trials", "states", "found"}, rows)
}

// writeHuntFindings names the counterexamples of a run's hunts in a box
// at the top of its report, each linked to its fault story.
func writeHuntFindings(p *page, hunts []Hunt) {
	var items [][]run
	for _, h := range hunts {
		if h.Found != nil {
			items = append(items, findingRuns(h, "counterexample: "))
		}
	}
	if len(items) == 0 {
		return
	}
	p.box("counterexamples", "verdict fail", func() {
		p.para("", boldf("%d hunt%s of this run found a counterexample:", len(items), plural(len(items))))
		p.list("", items)
	})
}
