package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func writeResults(t *testing.T, path string, rows []Row) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// makeHistory stores three runs; lcr's messages double in the last.
func makeHistory(t *testing.T) string {
	t.Helper()
	hist := filepath.Join(t.TempDir(), "history")
	src := filepath.Join(t.TempDir(), "results.csv")
	start := time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC)
	for i, lcr := range [][]int64{{44, 46, 44, 48, 44}, {44, 44, 46, 44, 48}, {88, 92, 88, 96, 88}} {
		rows := append(trialsOf("lcr", 8, lcr...), trialsOf("hs", 8, 80, 84, 82, 86, 88)...)
		rows = append(rows, trialsOf("lcr", 16, 152, 152, 150, 152, 154)...)
		writeResults(t, src, rows)
		m := Manifest{Version: "v0.1.0", Commit: "0123456789abcdef0123", Seed: 1, Scenario: "adhoc",
			Flags: []string{"nodes=8,16"}, FlagHash: "f1", Fingerprint: "m1", Rows: len(rows),
			Machine: Machine{OS: "linux", Arch: "amd64", CPUs: 2, CPU: "AMD EPYC", GoVersion: "go1.26"},
			Time:    start.Add(time.Duration(i) * 24 * time.Hour)}
		if i == 2 {
			m.Fingerprint = "m2"
		}
		run, err := AddToHistory(hist, m, src)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"000001-20250301T020000Z", "000002-20250302T020000Z", "000003-20250303T020000Z"}[i]; run.Name != want {
			t.Errorf("run %d named %s, want %s", i, run.Name, want)
		}
	}
	return hist
}

func TestHistory(t *testing.T) {
	hist := makeHistory(t)
	// Stray entries are not runs.
	os.MkdirAll(filepath.Join(hist, "notes"), 0o755)
	os.MkdirAll(filepath.Join(hist, "000009-incomplete"), 0o755)
	runs, err := ReadHistory(hist)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[2].Manifest.Fingerprint != "m2" || runs[0].Manifest.Seed != 1 {
		t.Fatalf("runs %+v", runs)
	}
	pooled := func(runs []HistoryRun, k int, side *CompareSide) []Row {
		var rows []Row
		err := ScanPooled(runs, k, func(r *Row) {
			rows = append(rows, *r)
			if side != nil {
				side.Add(r)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	rows := pooled(runs, 2, nil)
	if len(rows) != 30 || rows[0].Messages != 44 || rows[15].Messages != 88 {
		t.Errorf("last two runs pooled: %d rows", len(rows))
	}
	if all := pooled(runs, 0, nil); len(all) != 45 {
		t.Errorf("all runs pooled: %d rows", len(all))
	}
	// Pooling the first two as the base finds the third's regression.
	opt := CompareOptions{Threshold: -1}
	base, latest := NewCompareSide(opt), NewCompareSide(opt)
	pooled(runs[:2], 2, base)
	if err := ScanFile(runs[2].Results(), func(r *Row) error { latest.Add(r); return nil }); err != nil {
		t.Fatal(err)
	}
	if regs := CompareSides(base, latest).Regressions(); len(regs) != 3 || regs[0].Algorithm != "lcr" || regs[0].Nodes != 8 {
		t.Errorf("regressions against the pooled base: %+v", regs)
	}

	if err := WriteHistoryIndex(hist); err != nil {
		t.Fatal(err)
	}
	page := string(readFile(t, filepath.Join(hist, HistoryIndex)))
	for _, want := range []string{`<svg class="chart"`, "lcr/default (sim, adhoc): median messages", "median turnaround_t",
		`href="000001-20250301T020000Z/results.csv"`, `<td class="warn">m2</td>`, `id="medians-table"`, `<td class="n bad" data-v="88">88</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("index lacks %q", want)
		}
	}
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("index refers outside itself: %q", m)
	}
}

func TestCompareHTML(t *testing.T) {
	base := append(trialsOf("lcr", 8, 44, 46, 44, 48, 44), trialsOf("hs", 8, 80, 84, 82, 86, 88)...)
	newer := append(trialsOf("lcr", 8, 88, 92, 88, 96, 88), trialsOf("hs", 8, 81, 84, 82, 86, 88)...)
	c := Compare(base, newer, CompareOptions{Threshold: -1})
	var a, b bytes.Buffer
	if err := WriteCompareHTML(&a, c, "base/results.csv", "new/results.csv"); err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareHTML(&b, c, "base/results.csv", "new/results.csv"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renderings differ")
	}
	page := a.String()
	if !strings.Contains(page, "Significant regression") || !regexp.MustCompile(`<td class="bad">regression</td><td>lcr</td>`).MatchString(page) {
		t.Error("the regression is not shown first")
	}
	if m := externalRef.FindString(page); m != "" {
		t.Errorf("compare page refers outside itself: %q", m)
	}
	golden(t, "compare.html.golden", a.Bytes())
}

// BaseRuns never pools NEW: recognised as a stored run's directory or
// results file, or by the run id of the manifest beside NEW's results.
func TestBaseRunsExcludesNew(t *testing.T) {
	hist := makeHistory(t)
	runs, err := ReadHistory(hist)
	if err != nil {
		t.Fatal(err)
	}
	names := func(rs []HistoryRun) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.Name[:6])
		}
		return strings.Join(s, ",")
	}
	elsewhere := t.TempDir()
	writeResults(t, filepath.Join(elsewhere, ResultsCSV), trialsOf("lcr", 8, 44))
	for _, tc := range []struct {
		name, new string
		k         int
		base      string
		skipped   string
	}{
		{"stored dir", runs[2].Dir, 2, "000001,000002", "000003"},
		{"stored file", runs[2].Results(), 2, "000001,000002", "000003"},
		{"middle run", runs[1].Dir, 2, "000001,000003", "000002"},
		{"unrelated", elsewhere, 2, "000002,000003", ""},
		{"all", runs[2].Dir, 0, "000001,000002", "000003"},
	} {
		base, skipped, err := BaseRuns(runs, tc.new, tc.k)
		if err != nil || names(base) != tc.base || names(skipped) != tc.skipped {
			t.Errorf("%s: base %s, skipped %s, %v; want %s and %s", tc.name, names(base), names(skipped), err, tc.base, tc.skipped)
		}
	}
	// A results directory elsewhere carrying run 3's manifest is run 3.
	if err := WriteManifest(elsewhere, Manifest{RunID: "r3"}); err != nil {
		t.Fatal(err)
	}
	runs[2].Manifest.RunID = "r3"
	if base, skipped, _ := BaseRuns(runs, elsewhere, 2); names(base) != "000001,000002" || names(skipped) != "000003" {
		t.Errorf("by run id: base %s, skipped %s", names(base), names(skipped))
	}
}
