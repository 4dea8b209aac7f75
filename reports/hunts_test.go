package reports

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// hunt is a record of a search (key) by id, finding violation on
// algorithm ("" for nothing found).
func hunt(id, key, algorithm, violation string) Hunt {
	h := Hunt{ID: id, Key: key, Dir: "d/" + id}
	if algorithm != "" {
		h.Found = &Finding{Algorithm: algorithm, Violation: violation, Nodes: 5, Faults: 2, File: "counterexample.yaml",
			Shrunk: "shrunk.yaml", ShrunkNodes: 2, ShrunkFaults: 1}
	}
	return h
}

// TestNewCounterexamples: a finding is new unless one of the last k
// earlier hunts of its search found the same algorithm failing the same
// way; NEW's own copies in the base do not count.
func TestNewCounterexamples(t *testing.T) {
	raft := hunt("n", "k", "raft", "safety (two-leaders)")
	for _, c := range []struct {
		name string
		base []Hunt
		k    int
		new  bool
	}{
		{"no earlier hunt", nil, 0, true},
		{"earlier found nothing", []Hunt{hunt("a", "k", "", "")}, 0, true},
		{"earlier found it", []Hunt{hunt("a", "k", "raft", "safety (two-leaders)")}, 0, false},
		{"earlier found another violation", []Hunt{hunt("a", "k", "raft", "liveness")}, 0, true},
		{"earlier found it in another search", []Hunt{hunt("a", "other", "raft", "safety (two-leaders)")}, 0, true},
		{"found before the last k", []Hunt{hunt("a", "k", "raft", "safety (two-leaders)"), hunt("b", "k", "", "")}, 1, true},
		{"found within the last k", []Hunt{hunt("a", "k", "raft", "safety (two-leaders)"), hunt("b", "k", "", "")}, 2, false},
		{"only NEW's own copy found it", []Hunt{hunt("n", "k", "raft", "safety (two-leaders)")}, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := NewCounterexamples([]Hunt{raft}, c.base, c.k)
			if (len(got) == 1) != c.new || len(got) > 1 {
				t.Fatalf("NewCounterexamples = %v; want new %t", got, c.new)
			}
			if c.new {
				want := "new counterexample: raft safety (two-leaders), shrunk to N=2, 1 fault: d/n/shrunk.yaml"
				if s := got[0].String(); s != want {
					t.Errorf("String() = %q; want %q", s, want)
				}
			}
		})
	}
}

// TestHuntHistory: a hunt's record and files are stored in the history
// in order, read back, and listed on its page, a new finding at the top
// linked to its story.
func TestHuntHistory(t *testing.T) {
	dir, history := t.TempDir(), t.TempDir()
	for _, f := range []string{"counterexample.yaml", "shrunk.yaml", "story.html", "trace.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 11, 28, 2, 17, 0, 0, time.UTC)
	first, found := hunt("1", "k", "", ""), hunt("2", "k", "bully/classic", "safety (wrong-leader)")
	found.Found.Story, found.Found.StoryLine = "story.html", "p1's timer T1 fired first."
	for _, h := range []Hunt{first, found} {
		h.Time = at
		if err := WriteHunt(dir, h); err != nil {
			t.Fatal(err)
		}
		if _, err := AddHuntToHistory(history, h, dir); err != nil {
			t.Fatal(err)
		}
	}
	hunts, err := ReadHistoryHunts(history)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hunts {
		names = append(names, filepath.Base(h.Dir))
	}
	if want := []string{"000001-20261128T021700Z", "000002-20261128T021700Z"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("stored hunts %v; want %v", names, want)
	}
	if hunts[1].Found == nil || hunts[1].Found.StoryLine != found.Found.StoryLine {
		t.Errorf("read back %+v; want the finding", hunts[1].Found)
	}
	if _, err := os.Stat(filepath.Join(hunts[1].Dir, "shrunk.yaml")); err != nil {
		t.Errorf("the shrunk file is not stored: %v", err)
	}
	if err := WriteHistoryIndex(history); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(history, HistoryIndex))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"new counterexample: bully/classic safety (wrong-leader), shrunk to N=2, 1 fault: hunts/000002-20261128T021700Z/shrunk.yaml",
		`href="hunts/000002-20261128T021700Z/story.html"`,
		`id="hunts-table"`,
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the history page lacks %q", want)
		}
	}
}
