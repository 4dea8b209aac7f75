package trial

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

var (
	kElection = nodes.RegisterKind("TRIAL_TEST_ELECTION", nodes.ElectionClass)
	tTest     = nodes.RegisterTimer("TRIAL_TEST_T", nodes.ElectionClass)
	tTick     = nodes.RegisterTimer("TRIAL_TEST_TICK", nodes.MaintenanceClass)
)

func TestRecordCounts(t *testing.T) {
	r := NewRecord(3, time.Millisecond, DefaultDetector(time.Millisecond))
	if !r.CountSend(kElection, 10) || r.CountSend(KindPing, 4) {
		t.Fatal("CountSend: an election kind must report true, a maintenance kind false")
	}
	if r.Messages != 1 || r.Bytes != 14 || r.Sent[KindPing] != 1 || r.SentBytes[kElection] != 10 {
		t.Fatalf("counts %+v", r)
	}
	if !r.Initiated(2*time.Millisecond) || r.Initiated(time.Millisecond) || r.FirstInitiation != 2*time.Millisecond {
		t.Fatalf("first initiation %v", r.FirstInitiation)
	}
	r.Delivered(KindPing, 5*time.Millisecond)
	if r.LastElection != -1 {
		t.Fatal("a ping ended turnaround")
	}
	r.Delivered(kElection, 6*time.Millisecond)
	r.Crashed(2, 7*time.Millisecond, true)
	r.Suspected(1, 8*time.Millisecond) // not the crashed process
	r.Suspected(2, 9*time.Millisecond)
	r.Suspected(2, 10*time.Millisecond)
	r.CountFire(tTest)
	r.CountFire(tTick) // a maintenance tick: by kind only (issue 21)
	r.CountFire(tTick)
	if r.LastElection != 6*time.Millisecond || r.Crashes[0].FirstSuspicion != 9*time.Millisecond {
		t.Fatalf("turnaround end %v, detection %v", r.LastElection, r.Crashes[0].FirstSuspicion)
	}
	if got := r.TimeoutsByKind(); r.Timeouts != 4 || got["SUSPECT"] != 3 || got["TRIAL_TEST_T"] != 1 || got["TRIAL_TEST_TICK"] != 2 {
		t.Fatalf("timeouts %d %v", r.Timeouts, got)
	}
	nine := nodes.RankOf(9)
	r.Decided(0, &nine, time.Second)
	r.Decided(0, &nine, 2*time.Second)
	if d := r.Decisions.Get(0); d.Count != 2 || d.At != 2*time.Second || d.Leader != nodes.RankOf(9) {
		t.Fatalf("decision %+v", d)
	}
}

type collect struct {
	kinds Kinds
	got   []EventKind
}

func (c *collect) Kinds() Kinds   { return c.kinds }
func (c *collect) Event(e *Event) { c.got = append(c.got, e.Kind) }
func (c *collect) names() (s []string) {
	for _, k := range c.got {
		s = append(s, k.String())
	}
	return s
}

func TestTeeRoutesByKind(t *testing.T) {
	if Tee() != nil || Tee(nil, nil) != nil {
		t.Fatal("a tee of nothing must be nil")
	}
	a := &collect{kinds: KindsOf(EvDecide)}
	if Tee(nil, a) != Sink(a) {
		t.Fatal("a tee of one sink is that sink")
	}
	b := &collect{kinds: KindsOf(EvSend, EvDecide)}
	tee := Tee(a, b)
	if got := KindsOfSink(tee); got != KindsOf(EvSend, EvDecide) {
		t.Fatalf("tee kinds %b", got)
	}
	for _, k := range []EventKind{EvSend, EvDecide, EvCrash} {
		tee.Event(&Event{Kind: k})
	}
	if strings.Join(a.names(), ",") != "decide" || strings.Join(b.names(), ",") != "send,decide" {
		t.Fatalf("a got %v, b got %v", a.names(), b.names())
	}
	if KindsOfSink(nil) != 0 || KindsOfSink(NewTrace(&bytes.Buffer{})).Has(EvPhase) {
		t.Fatal("a nil sink wants nothing; a trace wants no phases")
	}
}

func TestEventKindNames(t *testing.T) {
	for k := EvStart; k < numEventKinds; k++ {
		if got, ok := EventKindByName(k.String()); !ok || got != k {
			t.Errorf("%v does not round-trip", k)
		}
		if AllKinds.Has(k) == (k == EvArm) {
			t.Errorf("AllKinds has %v: %v (only EvArm is left out)", k, AllKinds.Has(k))
		}
	}
	if KindsOfSink(NewTrace(&bytes.Buffer{})).Has(EvArm) {
		t.Fatal("a trace wants no timer arms: every trace hash would change")
	}
	if _, ok := EventKindByName("bogus"); ok || AllKinds.Has(0) || AllKinds.Has(numEventKinds) {
		t.Fatal("unknown kinds")
	}
}

// The trace format is the contract of --trace and of the report's
// message-sequence diagrams: one pinned line per kind of event.
func TestTraceLines(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTrace(&buf)
	m := nodes.Message{Kind: kElection, Rank: nodes.RankOf(5), A: 2}
	for _, e := range []Event{
		{At: 0, Kind: EvStart, P: 1},
		{At: 1, Kind: EvSend, ID: 7, P: 0, Q: 1, Msg: m},
		{At: 2, Kind: EvRecv, ID: 7, P: 0, Q: 1, Msg: m},
		{At: 3, Kind: EvTimer, P: 1, Timer: tTest},
		{At: 4, Kind: EvSuspect, P: 1, Q: 2},
		{At: 5, Kind: EvDecide, P: 1, Leader: nodes.RankOf(5)},
		{At: 6, Kind: EvFault, What: `crash(2)"\`},
		{At: 7, Kind: EvCrash, P: 2},
	} {
		tr.Event(&e)
	}
	if err := tr.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"t":0,"ev":"start","p":1}
{"t":1,"ev":"send","id":7,"from":0,"to":1,"kind":"TRIAL_TEST_ELECTION","rank":"5","a":2}
{"t":2,"ev":"recv","id":7,"from":0,"to":1,"kind":"TRIAL_TEST_ELECTION","rank":"5","a":2}
{"t":3,"ev":"timer","p":1,"timer":"TRIAL_TEST_T"}
{"t":4,"ev":"suspect","p":1,"q":2}
{"t":5,"ev":"decide","p":1,"leader":"5"}
{"t":6,"ev":"fault","what":"crash(2)"}
{"t":7,"ev":"crash","p":2}
`
	if buf.String() != want {
		t.Fatalf("trace:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestConfigValidate(t *testing.T) {
	alg := &nodes.Algorithm{Name: "x", Variants: []nodes.Variant{{Name: "default"}}}
	good := func() Config {
		c := DefaultConfig()
		c.Algorithm, c.Ranks = alg, nodes.RanksOf([]nodes.Rank{nodes.RankOf(1), nodes.RankOf(2)})
		return c
	}
	c := good()
	if err := c.Validate(); err != nil {
		t.Fatalf("the default config with an algorithm and two ranks: %v", err)
	}
	if c.VariantName() != "default" || c.DeadlineOrDefault() != DefaultDeadline(2, time.Millisecond) || !c.DetectorOrDefault().IsDefault(time.Millisecond) {
		t.Fatal("defaults")
	}
	for name, mutate := range map[string]func(*Config){
		"no algorithm":   func(c *Config) { c.Algorithm = nil },
		"no latency":     func(c *Config) { c.Latency = nil },
		"1 processes":    func(c *Config) { c.Ranks = nodes.RanksOf(c.Ranks.Slice()[:1]) },
		"initiator":      func(c *Config) { c.Initiators = []int{2} },
		"zero rank":      func(c *Config) { c.Ranks = nodes.RanksOf([]nodes.Rank{c.Ranks.At(0), {}}) },
		"negative":       func(c *Config) { c.Deadline = -1 },
		"fault 0 (cut)":  func(c *Config) { c.Faults = []Fault{{Link: Cut{}, Name: "cut"}} },
		"unknown effect": func(c *Config) { c.Faults = []Fault{{Effect: 200, Targets: func(View) []int { return nil }}} },
		"probability 1.5": func(c *Config) {
			c.Faults = []Fault{{Link: Loss{P: 1.5}, Links: func(View) LinkSet { return LinkSet{} }}}
		},
	} {
		c := good()
		mutate(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestAffectsIsAFunctionOfSeedFaultAndLink(t *testing.T) {
	every := LinkSet{Has: func(int, int) bool { return true }}
	none := LinkEffect{ID: 1, Links: LinkSet{Has: func(int, int) bool { return false }}}
	if none.Affects(1, 0, 1) || !(LinkEffect{Links: every}).Affects(1, 0, 1) {
		t.Fatal("a link outside the set, or toxicity 0 (every link)")
	}
	l := LinkEffect{ID: 3, Links: every, Toxicity: 0.25}
	hit := 0
	for from := range 40 {
		for to := range 40 {
			a := l.Affects(9, from, to)
			if a != l.Affects(9, from, to) {
				t.Fatal("the coin changed between two looks")
			}
			if a {
				hit++
			}
		}
	}
	if hit < 300 || hit > 500 { // 1600 links × 0.25 = 400
		t.Fatalf("%d of 1600 links affected at toxicity 0.25", hit)
	}
}

// The delay bound D of every model (issue 21): constant t and uniform's b
// exactly; normal and exponential their p99.9, which about one sample in a
// thousand exceeds.
func TestLatencyBound(t *testing.T) {
	ms := time.Millisecond
	for spec, want := range map[string]time.Duration{
		"3ms":              3 * ms,
		"uniform(1ms,5ms)": 5 * ms,
		"normal(5ms,1ms)":  5*ms + 3090232*time.Nanosecond,
		"exponential(2ms)": 13815511 * time.Nanosecond, // 2ms·ln 1000
	} {
		l, err := ParseLatency(spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := l.Bound(); got != want {
			t.Errorf("%s: D = %v, want %v", spec, got, want)
		}
		if l.Bound() < l.Mean() {
			t.Errorf("%s: D = %v below the mean %v", spec, l.Bound(), l.Mean())
		}
		r := rand.New(rand.NewPCG(1, 2))
		over := 0
		const draws = 200000
		for range draws {
			if l.Sample(r) > l.Bound() {
				over++
			}
		}
		if frac := float64(over) / draws; frac > 0.0015 {
			t.Errorf("%s: %.4f of samples exceed D, want at most about 1-%v", spec, frac, BoundQuantile)
		}
	}
}
