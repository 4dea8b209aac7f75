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

	"github.com/electbench/electbench/internal/boundedio"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A history directory keeps one subdirectory per run, named
// NNNNNN-YYYYMMDDTHHMMSSZ (a sequence number, then the UTC start time), each
// holding the run's results.csv and a manifest.json; index.html beside them
// shows the trend across runs. Nightly jobs append to it with
// `electbench run --history DIR` and compare against it with
// `electbench compare --base-history DIR --last K NEW`.

// Files of a history directory.
const (
	HistoryIndex    = "index.html"
	HistoryManifest = "manifest.json"
)

// Manifest records where, how and from what a stored run came.
type Manifest struct {
	Version     string    `json:"version"`     // electbench version
	Commit      string    `json:"commit"`      // VCS revision of the build, if known
	Machine     Machine   `json:"machine"`     // what ran it
	Fingerprint string    `json:"fingerprint"` // short hash of Machine: runs on different machines differ here
	Seed        uint64    `json:"seed"`
	Seeds       []uint64  `json:"seeds,omitempty"`           // each scenario's (spec's) seed, in plan order
	PlanHash    string    `json:"plan_hash,omitempty"`       // short hash of Plan: runs of the same trials (up to the seeds) share it
	Plan        []string  `json:"plan,omitempty"`            // the plan's canonical description (workloads.Canonical), one field a line
	RunID       string    `json:"run_id,omitempty"`          // unique per run; a resumed run keeps its own
	Scenario    string    `json:"scenario"`                  // the scenarios the rows came from, comma-separated
	Scenarios   []string  `json:"scenario_hashes,omitempty"` // each scenario file or built-in as name=sha256 of its text
	Flags       []string  `json:"flags"`                     // the flags that shape the results, as name=value, sorted
	Typed       []string  `json:"typed,omitempty"`           // the flags typed on the command line, by name, sorted: a replay repeats these
	FlagHash    string    `json:"flag_hash"`                 // short hash of the scenarios and Flags: runs of the same configuration share it
	Time        time.Time `json:"time"`                      // when the run started, UTC
	Rows        int       `json:"rows"`
	// Descriptions are the scenarios' descriptions by name, for the
	// report (the outcomes a scenario expects are shown beside it).
	Descriptions map[string]string `json:"descriptions,omitempty"`

	// A shard's results directory (run --shard K/M) says which part of the
	// plan it holds: Shard "K/M", the plan's trials in all (PlanTrials) and
	// its own by plan index (ShardTrials, as workloads.IndexRanges writes
	// them). electbench merge checks them and puts the parts together.
	Shard       string `json:"shard,omitempty"`
	PlanTrials  int    `json:"plan_trials,omitempty"`
	ShardTrials string `json:"shard_trials,omitempty"`
	// ShardKeys is, for each of the shard's trials in plan order, the
	// KeyHash of the row the plan says it writes (its algorithm, size,
	// trial and the seed the plan derives), concatenated: merge checks
	// every row against it, so swapped, foreign or copied rows are named.
	ShardKeys string `json:"shard_keys,omitempty"`
}

// MaxManifest bounds a manifest.json: a shard's key hashes (KeyHashLen
// bytes a trial) for MaxPlanTrials trials, and room for the rest.
const MaxManifest = KeyHashLen*MaxPlanTrials + 1<<20

// MaxPlanTrials bounds plan_trials in a manifest that merge reads: merge
// holds a row for each, so a larger figure is refused before anything is
// allocated for it.
const MaxPlanTrials = 1 << 22

// WriteManifest writes m as dir/manifest.json, atomically: a results
// directory carries the manifest of the run that wrote it, which --resume
// checks and compare --base-history uses to recognise NEW in the history.
func WriteManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(dir, filepath.Join(dir, HistoryManifest), func(out io.Writer) error {
		_, err := out.Write(append(b, '\n'))
		return err
	})
}

// ReadManifest reads dir/manifest.json; ok is false when there is none.
func ReadManifest(dir string) (m Manifest, ok bool, err error) {
	path := filepath.Join(dir, HistoryManifest)
	b, err := boundedio.ReadFile(path, MaxManifest, "manifest")
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, false, nil
	}
	if err != nil {
		return Manifest{}, false, fmt.Errorf("manifest: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return Manifest{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return m, true, nil
}

// Machine describes the computer a run used.
type Machine struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	CPU       string `json:"cpu"` // model name, when the system says
	GoVersion string `json:"go"`
}

// HistoryRun is one run stored in a history directory.
type HistoryRun struct {
	Name     string // the subdirectory
	Dir      string // its path
	Manifest Manifest
}

// Results is the path of the run's results file.
func (r HistoryRun) Results() string { return filepath.Join(r.Dir, ResultsCSV) }

// AddToHistory stores a finished run: it creates history/NNNNNN-TIME with
// the next sequence number, copies resultsCSV into it and writes m as its
// manifest. The directory appears under its final name only once complete.
func AddToHistory(history string, m Manifest, resultsCSV string) (HistoryRun, error) {
	if err := os.MkdirAll(history, 0o755); err != nil {
		return HistoryRun{}, fmt.Errorf("history: %w", err)
	}
	runs, err := ReadHistory(history)
	if err != nil {
		return HistoryRun{}, err
	}
	seq := 1
	if len(runs) > 0 {
		last, _ := strconv.Atoi(strings.SplitN(runs[len(runs)-1].Name, "-", 2)[0])
		seq = last + 1
	}
	name := fmt.Sprintf("%06d-%s", seq, m.Time.UTC().Format("20060102T150405Z"))
	tmp, err := os.MkdirTemp(history, ".incoming-*")
	if err != nil {
		return HistoryRun{}, fmt.Errorf("history: %w", err)
	}
	defer os.RemoveAll(tmp)
	if err := copyFile(resultsCSV, filepath.Join(tmp, ResultsCSV)); err != nil {
		return HistoryRun{}, fmt.Errorf("history: %w", err)
	}
	if err := WriteManifest(tmp, m); err != nil {
		return HistoryRun{}, fmt.Errorf("history: %w", err)
	}
	dir := filepath.Join(history, name)
	if err := os.Rename(tmp, dir); err != nil {
		return HistoryRun{}, fmt.Errorf("history: %w", err)
	}
	return HistoryRun{Name: name, Dir: dir, Manifest: m}, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ReadHistory lists the runs stored in history, oldest first. Entries that
// are not runs (no manifest, or a name that does not start with a sequence
// number) are ignored; a manifest that does not parse is an error.
func ReadHistory(history string) ([]HistoryRun, error) {
	entries, err := os.ReadDir(history)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var runs []HistoryRun
	for _, e := range entries {
		name := e.Name()
		seq, _, ok := strings.Cut(name, "-")
		if !e.IsDir() || !ok || len(seq) != 6 || strings.Trim(seq, "0123456789") != "" {
			continue
		}
		dir := filepath.Join(history, name)
		m, ok, err := ReadManifest(dir)
		if !ok && err == nil {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		runs = append(runs, HistoryRun{Name: name, Dir: dir, Manifest: m})
	}
	slices.SortFunc(runs, func(a, b HistoryRun) int { return strings.Compare(a.Name, b.Name) })
	return runs, nil
}

// ScanPooled reads the results of the last k runs (all when k ≤ 0),
// oldest run first, handing each row to add as it is read (ScanFile):
// the base of a comparison is counted, not held (CompareSide).
func ScanPooled(runs []HistoryRun, k int, add func(*Row)) error {
	if k > 0 && len(runs) > k {
		runs = runs[len(runs)-k:]
	}
	for _, r := range runs {
		err := ScanFile(r.Results(), func(row *Row) error {
			add(row)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// BaseRuns chooses the base of `compare --base-history`: the last k runs
// (all when k ≤ 0) other than NEW itself. newPath is NEW as given — a
// results file or a directory holding one. A stored run is NEW when it is
// the same directory, or when its manifest's run id is the one in the
// manifest beside NEW's results (a run stored with run --out DIR --history
// H has the same id in DIR and in H). skipped lists the runs left out as
// NEW.
func BaseRuns(runs []HistoryRun, newPath string, k int) (base, skipped []HistoryRun, err error) {
	newDir := newPath
	if fi, err := os.Stat(newPath); err == nil && !fi.IsDir() {
		newDir = filepath.Dir(newPath)
	}
	newMan, _, err := ReadManifest(newDir)
	if err != nil {
		return nil, nil, err
	}
	newInfo, statErr := os.Stat(newDir)
	for _, r := range runs {
		same := newMan.RunID != "" && r.Manifest.RunID == newMan.RunID
		if statErr == nil {
			if fi, err := os.Stat(r.Dir); err == nil && os.SameFile(fi, newInfo) {
				same = true
			}
		}
		if same {
			skipped = append(skipped, r)
		} else {
			base = append(base, r)
		}
	}
	if k > 0 && len(base) > k {
		base = base[len(base)-k:]
	}
	return base, skipped, nil
}

// historyIndexRuns bounds the runs the trend page reads: the most recent.
const historyIndexRuns = 60

// WriteHistoryIndex renders history/index.html: the runs with their
// manifests (a changed machine or configuration is marked, since the trend
// across it compares unlike runs), and per algorithm the median messages
// and turnaround of each size over the runs, as charts and a table.
func WriteHistoryIndex(history string) error {
	runs, err := ReadHistory(history)
	if err != nil {
		return err
	}
	if len(runs) > historyIndexRuns {
		runs = runs[len(runs)-historyIndexRuns:]
	}
	sums := make([][]Group, len(runs))
	for i, r := range runs {
		// Each run's summary, its rows read as a stream: a history holds
		// runs of any size.
		var s Summarizer
		if err := ScanFile(r.Results(), func(row *Row) error { s.Add(row); return nil }); err != nil {
			return err
		}
		sums[i] = s.Groups()
	}
	hunts, err := ReadHistoryHunts(history)
	if err != nil {
		return err
	}
	for i := range hunts {
		// The page links a hunt's files by paths relative to itself.
		if rel, err := filepath.Rel(history, hunts[i].Dir); err == nil {
			hunts[i].Dir = filepath.ToSlash(rel)
		}
	}
	path := filepath.Join(history, HistoryIndex)
	return writeFileAtomic(history, path, func(out io.Writer) error {
		return writeHistoryPage(out, runs, sums, hunts)
	})
}

func writeHistoryPage(out io.Writer, runs []HistoryRun, sums [][]Group, hunts []Hunt) error {
	p := newPage("electbench history")
	p.para("meta", txtf("%d runs · ", len(runs)), link("#runs", "Runs"), txt(" · "), link("#hunts", "Hunts"), txt(" · "), link("#trends", "Trends"), txt(" · "), link("#medians", "Medians by run"))
	writeNewCounterexamples(p, newestCounterexamples(hunts))
	writeHistoryRuns(p, runs, sums)
	writeHistoryHunts(p, hunts)
	tr := collectTrends(runs, sums)
	if err := writeTrends(p, tr, runs); err != nil {
		return err
	}
	writeMedians(p, tr, runs)
	return p.write(out)
}

// writeHistoryRuns lists the runs, flagging a machine or configuration
// other than the run before's.
func writeHistoryRuns(p *page, runs []HistoryRun, sums [][]Group) {
	p.h2("runs", txt("Runs"))
	p.note("Highlighted: a machine or configuration other than the run before's; trends across it compare unlike runs.")
	var rows [][]cell
	for i, r := range runs {
		m := r.Manifest
		fp, fh := textCell(m.Fingerprint), textCell(m.FlagHash)
		if i > 0 && m.Fingerprint != runs[i-1].Manifest.Fingerprint {
			fp.classes = "warn"
		}
		if i > 0 && m.FlagHash != runs[i-1].Manifest.FlagHash {
			fh.classes = "warn"
		}
		correct, live := 0.0, 0.0
		trials, unsafe := 0, 0
		for _, g := range sums[i] {
			correct += g.CorrectShare * float64(g.Trials)
			live += g.LiveShare * float64(g.Trials)
			trials += g.Trials
			unsafe += g.UnsafeTrials
		}
		share, liveShare := textCell("-"), textCell("-")
		if trials > 0 {
			share = floatCell(100*correct/float64(trials), 1)
			if correct < float64(trials) {
				share.classes = "bad"
			}
			liveShare = floatCell(100*live/float64(trials), 1)
			if live < float64(trials) {
				liveShare.classes = "bad"
			}
		}
		unsafeCell := intCell(unsafe)
		if unsafe > 0 {
			unsafeCell.classes = "bad"
		}
		rows = append(rows, []cell{
			linkCell(r.Name+"/"+ResultsCSV, r.Name),
			textCell(m.Time.UTC().Format(time.RFC3339)), textCell(m.Version), textCell(shortCommit(m.Commit)),
			fp, textCell(fmt.Sprintf("%s/%s, %d CPUs, %s", m.Machine.OS, m.Machine.Arch, m.Machine.CPUs, m.Machine.CPU)),
			textCell(strconv.FormatUint(m.Seed, 10)), fh, intCell(m.Rows), share, liveShare, unsafeCell,
		})
	}
	p.tableID("runs-table", "sortable", []string{"run", "time (UTC)", "version", "commit", "machine", "machine details",
		"seed", "flag hash", "rows", "correct %", "live %", "unsafe trials"}, rows)
}

// trendSeries is one series of the history: algorithm, variant, runtime,
// scenario.
type trendSeries struct{ a, v, r, s string }

type trendPoint struct {
	k trendSeries
	n int
}

// trends are the medians of every series and size over the runs (x is the
// run's number, from 1), series in order of first appearance.
type trends struct {
	keys             []trendSeries
	sizes            map[trendSeries][]int // ascending
	medMsgs, medTurn map[trendPoint][]plotter.XY
}

func collectTrends(runs []HistoryRun, sums [][]Group) trends {
	tr := trends{sizes: map[trendSeries][]int{}, medMsgs: map[trendPoint][]plotter.XY{}, medTurn: map[trendPoint][]plotter.XY{}}
	for i := range runs {
		for _, g := range sums[i] {
			k := trendSeries{g.Algorithm, g.Variant, g.Runtime, g.Scenario}
			if _, ok := tr.sizes[k]; !ok {
				tr.keys = append(tr.keys, k)
			}
			if !slices.Contains(tr.sizes[k], g.Nodes) {
				tr.sizes[k] = append(tr.sizes[k], g.Nodes)
			}
			pt := trendPoint{k, g.Nodes}
			if g.Messages.Median.IsSet() {
				tr.medMsgs[pt] = append(tr.medMsgs[pt], plotter.XY{X: float64(i + 1), Y: g.Messages.Median.Get()})
			}
			if g.TurnaroundT.Median.IsSet() {
				tr.medTurn[pt] = append(tr.medTurn[pt], plotter.XY{X: float64(i + 1), Y: g.TurnaroundT.Median.Get()})
			}
		}
	}
	for _, k := range tr.keys {
		slices.Sort(tr.sizes[k])
	}
	return tr
}

// writeTrends draws, per series, one line per size over the runs.
func writeTrends(p *page, tr trends, runs []HistoryRun) error {
	p.h2("trends", txt("Trends"))
	p.note("Median per run, one line per size N, log scale.")
	var figures []string
	for _, k := range tr.keys {
		label := k.a + "/" + k.v + " (" + k.r + ", " + k.s + ")"
		for _, m := range []struct {
			name string
			data map[trendPoint][]plotter.XY
		}{{"median messages", tr.medMsgs}, {"median turnaround_t", tr.medTurn}} {
			var lines []overviewSeries
			for _, n := range tr.sizes[k] {
				lines = append(lines, overviewSeries{label: "N=" + strconv.Itoa(n), pts: m.data[trendPoint{k, n}]})
			}
			svg, err := trendChart(label+": "+m.name, m.name, lines, runs)
			if err != nil {
				return err
			}
			figures = append(figures, svg)
		}
	}
	p.figures(figures)
	return nil
}

// writeMedians gives the medians as numbers for the last runs, each
// marked better or worse than the run before's.
func writeMedians(p *page, tr trends, runs []HistoryRun) {
	const lastRuns = 10
	from := max(0, len(runs)-lastRuns)
	p.h2("medians", txt("Medians by run"))
	head := []string{"algorithm", "variant", "runtime", "scenario", "nodes", "metric"}
	for _, r := range runs[from:] {
		head = append(head, strings.SplitN(r.Name, "-", 2)[0])
	}
	var mrows [][]cell
	for _, k := range tr.keys {
		for _, n := range tr.sizes[k] {
			for _, m := range []struct {
				name string
				data map[trendPoint][]plotter.XY
			}{{"messages", tr.medMsgs}, {"turnaround_t", tr.medTurn}} {
				row := []cell{textCell(k.a), textCell(k.v), textCell(k.r), textCell(k.s), intCell(n), textCell(m.name)}
				byRun := map[int]float64{}
				for _, xy := range m.data[trendPoint{k, n}] {
					byRun[int(xy.X)-1] = xy.Y
				}
				mrows = append(mrows, append(row, medianCells(byRun, from, len(runs))...))
			}
		}
	}
	p.tableID("medians-table", "sortable", head, mrows)
}

// medianCells are the cells of runs from..to-1, "-" where a run has no
// value, each marked bad when above the value of the run before it and
// good when below.
func medianCells(byRun map[int]float64, from, to int) []cell {
	var row []cell
	prev, hasPrev := 0.0, false
	for i := from; i < to; i++ {
		v, ok := byRun[i]
		if !ok {
			row = append(row, textCell("-"))
			hasPrev = false
			continue
		}
		c := floatCell(v, 2)
		if hasPrev && v > prev {
			c.classes = "bad"
		} else if hasPrev && v < prev {
			c.classes = "good"
		}
		row = append(row, c)
		prev, hasPrev = v, true
	}
	return row
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// trendChart draws lines over run numbers (x) on a log y axis, the x ticks
// labelled with the runs' sequence numbers.
func trendChart(title, yLabel string, lines []overviewSeries, runs []HistoryRun) (string, error) {
	p := newChart(title, "run", yLabel)
	yb := newBounds()
	drawn := 0
	for i, s := range lines {
		var pts xys
		for _, pt := range s.pts {
			if pt.Y > 0 {
				pts = append(pts, pt)
				yb.add(pt.Y)
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return "", err
		}
		line.Color, points.Color = paletteColor(i), paletteColor(i)
		points.Shape, points.Radius = draw.CircleGlyph{}, vg.Points(2)
		p.Add(line, points)
		p.Legend.Add(s.label, line, points)
		drawn++
	}
	if drawn == 0 {
		return "", nil
	}
	setLinear(&p.X, 1, float64(len(runs)))
	step := max(1, len(runs)/8)
	p.X.Tick.Marker = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var t []plot.Tick
		for i := 1; i <= len(runs); i++ {
			tk := plot.Tick{Value: float64(i)}
			if (i-1)%step == 0 || i == len(runs) {
				tk.Label = strings.TrimLeft(strings.SplitN(runs[i-1].Name, "-", 2)[0], "0")
			}
			t = append(t, tk)
		}
		return t
	})
	setLog(&p.Y, yb.lo, yb.hi)
	return renderChart(p, title)
}
