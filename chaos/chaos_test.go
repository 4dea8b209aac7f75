package chaos

import (
	"flag"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// world is a fixed World for tests: ranks by position, a leader, initiators.
type world struct {
	ranks      []uint64
	dead       map[int]bool
	leader     int
	initiators []int
	r          *rand.Rand
}

func newWorld(ranks ...uint64) *world {
	return &world{ranks: ranks, dead: map[int]bool{}, leader: -1, r: rand.New(rand.NewPCG(1, 2))}
}

func (w *world) N() int                { return len(w.ranks) }
func (w *world) Rank(p int) nodes.Rank { return nodes.RankOf(w.ranks[p]) }
func (w *world) Alive(p int) bool      { return !w.dead[p] }
func (w *world) Leader() int           { return w.leader }
func (w *world) Initiators() []int     { return w.initiators }
func (w *world) Rand() *rand.Rand      { return w.r }
func (w *world) Now() time.Duration    { return 0 }

func TestSelectors(t *testing.T) {
	w := newWorld(3, 9, 4, 1, 7) // highest at 1, lowest at 3
	w.initiators = []int{4, 2}
	for sel, want := range map[string][]int{
		"2": {2}, "index:4": {4}, "all": {0, 1, 2, 3, 4},
		"highest": {1}, "lowest": {3}, "would-be-leader": {1},
		"leader":       {1}, // nobody decided: the would-be leader
		"initiator":    {2}, // the first by position
		"successor(1)": {2}, "successor(4)": {0}, "successor(successor(highest))": {3},
		"0,highest,0": {0, 1},
	} {
		s, err := ParseSelector(sel)
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if got := s.Resolve(w); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", sel, got, want)
		}
	}
	// Roles move: the leader is whoever was decided; the would-be leader
	// skips crashed processes, highest does not.
	w.leader, w.dead[1] = 4, true
	for sel, want := range map[string][]int{"leader": {4}, "would-be-leader": {4}, "highest": {1}} {
		s, _ := ParseSelector(sel)
		if got := s.Resolve(w); !slices.Equal(got, want) {
			t.Errorf("after a crash, %s = %v, want %v", sel, got, want)
		}
	}
	// random(k): k distinct live processes, the same for the same stream.
	s, _ := ParseSelector("random(3)")
	a := s.Resolve(w)
	w.r = rand.New(rand.NewPCG(1, 2))
	if b := s.Resolve(w); len(a) != 3 || !slices.Equal(a, b) || slices.Contains(a, 1) {
		t.Errorf("random(3) = %v then %v", a, b)
	}
	for _, bad := range []string{"", "tallest", "random(0)", "random(x)", "successor()", "-1", "successor(1,2)",
		strings.Repeat("successor(", 20) + "1" + strings.Repeat(")", 20)} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("ParseSelector(%q) accepted", bad)
		}
	}
	if err := Index(5).Check(5); err == nil {
		t.Error("position 5 of 5 passed Check")
	}
}

func linksOf(t *testing.T, w World, f Fault) (string, [][]bool) {
	t.Helper()
	l := f.LinkSet(w)
	n := w.N()
	m := make([][]bool, n)
	for a := range n {
		m[a] = make([]bool, n)
		for b := range n {
			m[a][b] = a != b && l.Has(a, b)
		}
	}
	return l.Text, m
}

// Partition shapes: which links are cut.
func TestPartitionShapes(t *testing.T) {
	w := newWorld(1, 2, 3, 4, 5)
	shape := func(s string) Fault {
		sh, err := ParseShape(s)
		if err != nil {
			t.Fatal(err)
		}
		return Fault{Kind: "partition", Shape: sh}
	}
	for s, want := range map[string]string{
		"halves": "0,1,2|3,4", "isolate(0)": "0|1,2,3,4", "isolate(highest)": "0,1,2,3|4",
		"bridge": "0,1|2|3,4", "bridge(0)": "3,4|0|1,2", "majorities-ring": "ring(d=1)",
	} {
		text, _ := linksOf(t, w, shape(s))
		if text != want {
			t.Errorf("%s: %s, want %s", s, text, want)
		}
	}
	// majority: the would-be leader (4) and its successor (0) against 3.
	if text, _ := linksOf(t, w, shape("majority")); text != "0,4|1,2,3" {
		t.Errorf("majority: %s", text)
	}
	// majorities-ring: every process sees exactly a majority (3 of 5,
	// itself included), and no two see the same set.
	_, m := linksOf(t, w, shape("majorities-ring"))
	seen := map[string]bool{}
	for a := range 5 {
		var sees []string
		for b := range 5 {
			if a == b || !m[a][b] {
				sees = append(sees, string(rune('0'+b)))
			}
		}
		if len(sees) != 3 || seen[strings.Join(sees, "")] {
			t.Errorf("process %d sees %v", a, sees)
		}
		seen[strings.Join(sees, "")] = true
	}
	// The bridge talks to both sides; the sides do not talk.
	_, m = linksOf(t, w, shape("bridge"))
	if m[2][0] || m[2][4] || m[0][2] || !m[0][3] || !m[4][1] || m[0][1] {
		t.Errorf("bridge cuts %v", m)
	}
	// Groups: the unlisted form one more; one-way cuts one direction.
	g0, _ := ParseSelector("0")
	g1, _ := ParseSelector("1,2")
	f := shape("groups")
	f.Groups = []Selector{g0, g1}
	if text, _ := linksOf(t, w, f); text != "0|1,2|3,4" {
		t.Errorf("groups: %s", text)
	}
	f = shape("one-way")
	f.From, f.To = g0, g1
	if text, m := linksOf(t, w, f); text != "0>1,2" || !m[0][1] || m[1][0] || m[0][3] {
		t.Errorf("one-way: %s %v", text, m)
	}
	for _, bad := range []string{"wedge", "isolate", "isolate(tallest)", ""} {
		if _, err := ParseShape(bad); err == nil {
			t.Errorf("ParseShape(%q) accepted", bad)
		}
	}
}

// Link faults: from/to, or a target with a direction.
func TestLinkSelection(t *testing.T) {
	w := newWorld(1, 2, 3)
	one, _ := ParseSelector("1")
	for dir, want := range map[string][2]bool{"out": {true, false}, "in": {false, true}, "both": {true, true}} {
		_, m := linksOf(t, w, Fault{Kind: "latency", Target: one, Direction: dir})
		if m[1][0] != want[0] || m[0][1] != want[1] || m[0][2] {
			t.Errorf("direction %s: %v", dir, m)
		}
	}
	if text, m := linksOf(t, w, Fault{Kind: "loss"}); text != "all" || !m[0][1] || !m[2][0] {
		t.Errorf("all links: %s %v", text, m)
	}
}

func TestTriggers(t *testing.T) {
	for in, want := range map[string]Trigger{
		"start":                 {Kind: AtStart},
		"5ms":                   {Kind: AtTime, At: Duration{"5ms"}},
		"3T":                    {Kind: AtTime, At: Duration{"3T"}},
		"election-start":        {Kind: ElectionStart},
		"leader-elected+2T":     {Kind: LeaderElected, Delay: Duration{"2T"}},
		"after-messages(12)+1T": {Kind: AfterMessages, K: 12, Delay: Duration{"1T"}},
		// The random offset (Raft's Figure 16 crashes the leader at a
		// uniformly random instant within its heartbeat interval).
		"leader-elected+uniform(0,75ms)": {Kind: LeaderElected, Spread: Spread{Duration{"0"}, Duration{"75ms"}}},
		"leader-elected+300ms+uniform(0,75ms)": {Kind: LeaderElected, Delay: Duration{"300ms"},
			Spread: Spread{Duration{"0"}, Duration{"75ms"}}},
		"5ms+uniform(1T,2T)":   {Kind: AtTime, At: Duration{"5ms"}, Spread: Spread{Duration{"1T"}, Duration{"2T"}}},
		"start+uniform(0,1ms)": {Kind: AtStart, Spread: Spread{Duration{"0"}, Duration{"1ms"}}},
	} {
		got, err := ParseTrigger(in)
		if err != nil || got != want {
			t.Errorf("ParseTrigger(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if got.String() != strings.ReplaceAll(in, " ", "") {
			t.Errorf("%q prints as %q", in, got)
		}
		if got.Immediate() != (in == "start") {
			t.Errorf("%q: Immediate() = %v", in, got.Immediate())
		}
	}
	for _, bad := range []string{"soon", "after-messages(0)", "after-messages", "5ms+1ms", "leader-elected+x", "-3ms",
		"leader-elected+uniform(0)", "leader-elected+uniform(2ms,1ms)", "leader-elected+uniform(-1ms,1ms)",
		"leader-elected+uniform(0,x)", "leader-elected+uniform(0,1ms)+2T", "leader-elected+1T+2T",
		"leader-elected+1T+2T+uniform(0,1T)", "5ms+1ms+uniform(0,1ms)", "leader-elected+uniform0,1ms)"} {
		if _, err := ParseTrigger(bad); err == nil {
			t.Errorf("ParseTrigger(%q) accepted", bad)
		}
	}
}

func TestExpectations(t *testing.T) {
	if c, err := parseMessageCap("at-most theory*1.5"); err != nil || c.Theory != 1.5 {
		t.Errorf("theory*1.5: %+v %v", c, err)
	}
	if c, err := parseMessageCap("at-most 120"); err != nil || c.Max != 120 || c.Theory != 0 {
		t.Errorf("at-most 120: %+v %v", c, err)
	}
	if p, err := parsePercentile("p99.9 < 20T"); err != nil || p.Q != 99.9 || p.Below.Text != "20T" {
		t.Errorf("p99.9: %+v %v", p, err)
	}
	for _, bad := range []string{"at-most theory*0", "at-most -1", "at-most theory/2", "most 5"} {
		if _, err := parseMessageCap(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, bad := range []string{"p0 < 1ms", "p101 < 1ms", "p95 <", "95 < 1ms"} {
		if _, err := parsePercentile(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A file that writes every field, and one that writes only what is
// required: the second gets every default, explicitly.
func TestParseFieldsAndDefaults(t *testing.T) {
	full := `
name: full
description: everything
runtime: sim
algorithms:
  - bully
  - ring/default
  - {name: bully, variant: two-phase, params: {t1: 3T, t2: 6T}}
nodes: [4, 8]
ids: [1, 2, 3, 4]
rank: epoch
initiators: [0, 2]
network:
  latency: uniform(1ms,3ms)
  links:
    - {from: 0, to: [1, 2], latency: 5ms}
detector: heartbeat(1T,4T)
trials: 7
seed: 42
deadline: 900T
faults:
  - {kind: crash, name: c, target: leader, at: leader-elected+2T, undetected: true}
  - {kind: partition, shape: "isolate(successor(leader))", after-messages: 9, for: 10T}
  - {kind: latency, latency: 2ms, jitter: 1ms, target: 1, direction: out, toxicity: 0.5}
  - {kind: slicer, average-size: 4, size-variation: 1, delay: 10us}
  - {kind: suspect, target: highest, observers: [0, 1]}
  - heal: c
    at: 40T
expect:
  safety: always
  correct: always
  liveness: within 50T
  messages: at-most theory*2
  turnaround: p95 < 30T
`
	scs, err := Parse("full.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	s := scs[0]
	if s.Name != "full" || len(s.Algorithms) != 3 || s.Algorithms[1].Name != "ring" || s.Algorithms[1].Variant != "default" ||
		s.Algorithms[2].Params["t2"] != "6T" || s.Nodes != "4,8" || s.IDs != "1,2,3,4" || s.Initiators != "0,2" ||
		s.Rank != "epoch" || s.Trials != 7 || s.Seed != 42 || s.Deadline.Text != "900T" || s.Detector != "heartbeat(1T,4T)" ||
		s.Network.Latency != "uniform(1ms,3ms)" || len(s.Network.Links) != 1 || s.Network.Links[0].To.String() != "1,2" {
		t.Fatalf("parsed %+v", s)
	}
	if len(s.Faults) != 5 {
		t.Fatalf("%d faults (the heal is not one)", len(s.Faults))
	}
	c, p, l := s.Faults[0], s.Faults[1], s.Faults[2]
	if !c.Compile(time.Millisecond).Undetected || c.Heal == nil || c.Heal.At.Text != "40T" || c.Start.Kind != LeaderElected || c.Start.Delay.Text != "2T" {
		t.Errorf("crash %+v heal %+v", c, c.Heal)
	}
	if p.Start.Kind != AfterMessages || p.Start.K != 9 || p.For.Text != "10T" || p.Shape.String() != "isolate(successor(leader))" || p.Label() != "partition(isolate(successor(leader)))" {
		t.Errorf("partition %+v", p)
	}
	if l.Direction != "out" || l.Toxicity != 0.5 || l.Compile(time.Millisecond).Link.(trial.Delay).Jitter != time.Millisecond {
		t.Errorf("latency %+v", l)
	}
	if s.Expect.Messages.Theory != 2 || s.Expect.Turnaround.Q != 95 || !s.Expect.Safety || !s.Expect.Correct || s.Expect.Liveness.Text != "50T" {
		t.Errorf("expect %+v", s.Expect)
	}
	roundTrip(t, s) // every expectation, correct among them, is written back
	if !s.Has("faults[2].toxicity") || s.Has("faults[3].toxicity") {
		t.Error("Has does not tell written fields from defaults")
	}
	if e := s.Errorf("faults[1].shape", "x"); e.Line != 23 {
		t.Errorf("position of faults[1].shape: %v", e)
	}

	scs, err = Parse("min.yaml", []byte("name: min\nalgorithms: all\nfaults:\n  - {kind: loss, probability: 0.1}\n  - {kind: reorder, probability: 0.2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s = scs[0]
	if !s.AllAlgos || s.Runtime != DefaultRuntime || s.Nodes != DefaultNodes || s.IDs != DefaultIDs || s.Rank != DefaultRank ||
		s.Initiators != DefaultInitiators || s.Network.Latency != DefaultLatency || s.Detector != DefaultDetector ||
		s.Trials != 5 || s.Seed != 1 || !s.Expect.IsZero() {
		t.Fatalf("defaults %+v", s)
	}
	if f := s.Faults[0]; f.Toxicity != 1 || f.Start.Kind != AtStart || !f.For.IsZero() {
		t.Errorf("fault defaults %+v", f)
	}
	if f := s.Faults[1]; f.Compile(time.Millisecond).Link != (trial.Reordering{P: 0.2, Hold: 2 * time.Millisecond}) {
		t.Errorf("reorder's default delay %+v", f)
	}
}

func TestJSONAccepted(t *testing.T) {
	scs, err := Parse("s.json", []byte(`{"name": "j", "algorithms": ["ring"], "nodes": 5, "faults": [{"kind": "crash", "target": "leader", "at": "3T"}]}`))
	if err != nil || scs[0].Faults[0].Start.At.Text != "3T" || scs[0].Nodes != "5" {
		t.Fatalf("%v %+v", err, scs)
	}
}

func TestParseLimits(t *testing.T) {
	big := strings.Repeat("#", MaxFileSize+1)
	if _, err := Parse("big.yaml", []byte(big)); err == nil || !strings.Contains(err.Error(), "more than a scenario file may hold") {
		t.Errorf("oversized: %v", err)
	}
	for in, want := range map[string]string{
		"":                                    "no scenario",
		"# nothing\n":                         "no scenario",
		"- a\n- b\n":                          "want a mapping",
		"name: x\n":                           "algorithms: required field missing",
		"name: x\nalgorithms: []\n":           "no algorithm",
		"name: x\nalgorithms: [ring]\n3: y\n": "field name must be text",
	} {
		if _, err := Parse("f.yaml", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want %q", in, err, want)
		}
	}
}

// Every built-in file parses, says in a comment what it demonstrates, and
// has a summary for `scenario list`.
func TestBuiltinsParse(t *testing.T) {
	names := BuiltinNames()
	if !slices.Contains(names, "default") || len(names) < 8 {
		t.Fatalf("built-ins %v", names)
	}
	for _, name := range names {
		b, _ := Builtin(name)
		if !strings.HasPrefix(string(b), "# ") || BuiltinSummary(name) == "" {
			t.Errorf("%s: no leading comment saying what it demonstrates", name)
		}
		if _, err := Parse(name+".yaml", b); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, ok := Builtin("nonexistent"); ok {
		t.Error("a built-in that does not exist")
	}
}

// Every registered kind documents its simulator and live semantics, and
// every default it documents decodes (Reference would list it otherwise).
func TestKindsDocumented(t *testing.T) {
	for _, k := range Kinds() {
		if k.Sim == "" || k.Live == "" || k.Summary == "" {
			t.Errorf("%s: undocumented", k.Name)
		}
		for _, f := range faultFields(k) {
			if f.doc == "" || f.typ == "" {
				t.Errorf("%s.%s: undocumented", k.Name, f.name)
			}
		}
	}
}

var rewrite = flag.Bool("rewrite", false, "rewrite docs/scenarios.md from Reference()")

// docs/scenarios.md is Reference(): generated from the parser's tables.
func TestReferenceIsCurrent(t *testing.T) {
	const path = "../docs/scenarios.md"
	got := Reference()
	if *rewrite {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || string(want) != got {
		t.Fatalf("docs/scenarios.md is not Reference() (go test ./chaos -run TestReferenceIsCurrent -rewrite): %v", err)
	}
	for _, k := range Kinds() {
		if !strings.Contains(got, "#### `"+k.Name+"`") {
			t.Errorf("the reference does not document %s", k.Name)
		}
	}
}

// The comparisons of expect.columns: a bare number is equality, an operator
// bounds one side, A..B both (included).
func TestParseComparison(t *testing.T) {
	for _, c := range []struct {
		in      string
		text    string
		yes, no []float64
	}{
		{"0", "0", []float64{0}, []float64{-0.5, 1}},
		{">=3", ">=3", []float64{3, 40}, []float64{2.99}},
		{"> 3", ">3", []float64{3.5}, []float64{3}},
		{"<2.5", "<2.5", []float64{2}, []float64{2.5}},
		{"<= 2", "<=2", []float64{2, -1}, []float64{2.1}},
		{"==4", "4", []float64{4}, []float64{5}},
		{"1..4", "1..4", []float64{1, 2.5, 4}, []float64{0.9, 4.1}},
	} {
		cmp, err := ParseComparison(c.in)
		if err != nil || cmp.Text != c.text {
			t.Errorf("%q: %+v %v, want text %q", c.in, cmp, err, c.text)
			continue
		}
		for _, x := range c.yes {
			if !cmp.Holds(x) {
				t.Errorf("%q does not hold for %g", c.in, x)
			}
		}
		for _, x := range c.no {
			if cmp.Holds(x) {
				t.Errorf("%q holds for %g", c.in, x)
			}
		}
	}
	for _, bad := range []string{"", "about 3", ">=", "=>3", "4..1", "1..", "NaN", ">inf", "3%"} {
		if _, err := ParseComparison(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// expect.columns reads into conditions with their bounds in the order
// written; which algorithms and variants they apply to.
func TestColumnConditions(t *testing.T) {
	scs, err := Parse("c.yaml", []byte(`name: c
algorithms: [raft]
expect:
  columns:
    - {algorithm: etcd-raft, variant: plain, column: terms, median: ">=10", max: 40}
    - {variant: etcd, column: safety_violations, max: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	cs := scs[0].Expect.Columns
	if len(cs) != 2 || scs[0].Expect.IsZero() || !scs[0].Expect.OverTrials() {
		t.Fatalf("columns %+v", cs)
	}
	if got := cs[0].String(); got != "algorithm etcd-raft variant plain terms median >=10 max 40" {
		t.Errorf("first: %q", got)
	}
	if !cs[0].Applies("etcd-raft", "plain") || cs[0].Applies("etcd-raft", "etcd") || cs[0].Applies("raft", "plain") {
		t.Error("first applies to the wrong trials")
	}
	if !cs[1].Applies("etcd-raft", "etcd") || !cs[1].Applies("other", "etcd") || cs[1].Applies("etcd-raft", "plain") {
		t.Error("second applies to the wrong trials")
	}
}

// The incident library is listed apart, and every name of it is a built-in.
func TestIncidentLibrary(t *testing.T) {
	inc := IncidentNames()
	for _, want := range []string{"bridge-split-brain", "raft-chain", "rejoin-term-inflation", "one-way-inbound", "cloudflare-2020", "limping-leader", "lease-pause"} {
		if !slices.Contains(inc, want) || !IsIncident(want) || !slices.Contains(BuiltinNames(), want) {
			t.Errorf("%s: not in the incident library %v", want, inc)
		}
	}
	if IsIncident("default") || IsIncident("etcd-halves") {
		t.Error("a classic scenario counted as an incident")
	}
	for _, name := range BuiltinNames() {
		if strings.ToLower(name) != name {
			t.Errorf("%s: built-in names are lower case (scenario list's headings are not)", name)
		}
		b, _ := Builtin(name)
		if IsIncident(name) && !strings.Contains(string(b), "Source") {
			t.Errorf("%s: an incident cites its source", name)
		}
	}
}

// A built-in that replays an incident against other algorithms gets the
// incident view in the report; it stays out of the library itself.
func TestReplaysIncident(t *testing.T) {
	for name, want := range map[string]bool{"server-cloudflare-2020": true, "hraft-cloudflare-2020": false, "cloudflare-2020": true,
		"server-leader-crash": false, "my-cloudflare-2020": false, "default": false} {
		if got := ReplaysIncident(name); got != want {
			t.Errorf("ReplaysIncident(%q) = %v, want %v", name, got, want)
		}
	}
	if IsIncident("server-cloudflare-2020") {
		t.Error("server-cloudflare-2020 is of the incident library")
	}
}

// A scenario an incident file declares beside its first is of the
// library too: its rows get the incident view and the default trace.
func TestIsIncidentKnowsEveryPhase(t *testing.T) {
	for name, want := range map[string]bool{"cloudflare-2020": true, "cloudflare-2020-cut": true, "raft-chain": true,
		"limping-leader-10t": true, "default": false, "quorum-halves": false, "no-such": false} {
		if got := IsIncident(name); got != want {
			t.Errorf("IsIncident(%q) = %v, want %v", name, got, want)
		}
	}
}
