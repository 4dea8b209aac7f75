package reports

import (
	"regexp"
	"strings"
	"testing"
)

// storyTrace is a hand-made trial of bully on 3 processes at T = 1ms: p0
// initiates, a partition isolates p2 from 0.5T to 3T and loses p0's
// ELECTION to it, p1's OK takes 1T, and p0's T1 fires at 1.5T before it
// arrives: p0 declares itself while p1 and p2 are alive.
const storyTrace = `{"trial":0,"algorithm":"bully","variant":"classic","nodes":3,"seed":9,"scenario":"story"}
{"t":0,"ev":"start","p":0}
{"t":0,"ev":"start","p":1}
{"t":0,"ev":"start","p":2}
{"t":0,"ev":"initiate","p":0}
{"t":0,"ev":"send","id":1,"from":0,"to":1,"kind":"ELECTION"}
{"t":500000,"ev":"fault","what":"partition(isolate(2))[0,1|2]"}
{"t":500000,"ev":"send","id":2,"from":0,"to":2,"kind":"ELECTION"}
{"t":500000,"ev":"lose","id":2,"from":0,"to":2,"kind":"ELECTION"}
{"t":1000000,"ev":"recv","id":1,"from":0,"to":1,"kind":"ELECTION"}
{"t":1000000,"ev":"send","id":3,"from":1,"to":0,"kind":"OK"}
{"t":1500000,"ev":"timer","p":0,"timer":"T1"}
{"t":1500000,"ev":"decide","p":0,"leader":"1"}
{"t":2000000,"ev":"recv","id":3,"from":1,"to":0,"kind":"OK"}
{"t":3000000,"ev":"fault","what":"heal partition(isolate(2))"}
`

// TestWriteStory: the page tells each fault in a sentence (when, what it
// lost), the violation by its cause (the timer that fired before the
// answer came), rings the violating event in the diagram, and fetches
// nothing (it opens offline).
func TestWriteStory(t *testing.T) {
	var b strings.Builder
	row := Row{TS: 0.001, Violation: "wrong-leader at 1.5ms: process 0 (id 1) decided 1 while 3 is alive",
		Faults: "t=500µs:partition(isolate(2))[0,1|2];t=3ms:heal partition(isolate(2))"}
	err := WriteStory(&b, Story{Name: "story", File: []byte("name: story\n"), Row: row,
		Failures: []string{"safety (wrong-leader)"}, Trace: strings.NewReader(storyTrace)})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"partition(isolate(2))[p0,p1|p2] from 0.5T to 3T: 1 message(s) lost, the first the ELECTION from p0 to p2 at 0.5T.",
		"p0&#39;s timer T1 fired at 1.5T, before the OK from p1 (sent at 1T) arrived at 2T; then wrong-leader at 1.5ms",
		`<g class="violation"><circle cx="92" cy="`, // p0's lane, ringed
		"bully/classic N=3, trial seed 9",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if ext := regexp.MustCompile(`(src|href)="https?:`).FindString(page); ext != "" {
		t.Errorf("the page fetches %s: it must open offline", ext)
	}
}

// TestStoryLine: the story in one line is the page's sentence on the
// violation, by its cause.
func TestStoryLine(t *testing.T) {
	row := Row{TS: 0.001, Violation: "wrong-leader at 1.5ms: process 0 (id 1) decided 1 while 3 is alive"}
	line, err := StoryLine(Story{Row: row, Trace: strings.NewReader(storyTrace)})
	if err != nil {
		t.Fatal(err)
	}
	want := "p0's timer T1 fired at 1.5T, before the OK from p1 (sent at 1T) arrived at 2T; then wrong-leader at 1.5ms: process 0 (id 1) decided 1 while 3 is alive."
	if line != want {
		t.Errorf("StoryLine = %q\nwant %q", line, want)
	}
	// With the trial's timer arms the sentence says how long the timer
	// that expired was: the arm of p0's T1 that expires at 1.5T, not an
	// earlier one re-armed since nor another process's.
	arms := []TimerArm{{P: 0, Timer: "T1", At: 0, For: 1e6}, {P: 1, Timer: "T1", At: 0, For: 1500000}, {P: 0, Timer: "T1", At: 0, For: 1500000}}
	line, err = StoryLine(Story{Row: row, Trace: strings.NewReader(storyTrace), Arms: arms})
	if err != nil {
		t.Fatal(err)
	}
	want = "p0's timer T1 of 1.5T (set at 0T) expired at 1.5T, before the OK from p1 (sent at 1T) arrived at 2T; then wrong-leader at 1.5ms: process 0 (id 1) decided 1 while 3 is alive."
	if line != want {
		t.Errorf("StoryLine with arms = %q\nwant %q", line, want)
	}
	if _, err := StoryLine(Story{Row: row, Trace: strings.NewReader("")}); err == nil {
		t.Error("StoryLine of an empty trace: no error")
	}
}

// TestStoryFocus: a trace too long to draw is drawn from 10T before its
// violation to 2T after, as a window.
func TestStoryFocus(t *testing.T) {
	tr := &TraceTrial{}
	for i := range 1000 {
		tr.Events = append(tr.Events, TraceEvent{T: int64(i) * 1e5, Ev: "timer", P: 0, Timer: "beat"}) // 10 a T
	}
	focus(tr, "wrong-leader at 50ms: process 0 decided", 1e6)
	first, last := tr.Events[0].T, tr.Events[len(tr.Events)-1].T
	if !tr.Window || first != 40e6 || last != 52e6 {
		t.Errorf("window %t, from %d to %d; want a window from 40ms to 52ms", tr.Window, first, last)
	}
}

// A crash's sentence names who went down believing what, and when each
// came back as a fresh machine: a restarted raft with amnesia votes again
// in its term, and that is the story.
func TestStoryTellsCrashes(t *testing.T) {
	evs := []TraceEvent{
		{T: 10, Ev: "decide", P: 0, Leader: "7"},
		{T: 10, Ev: "decide", P: 1, Leader: "7"},
		{T: 32, Ev: "crash", P: 0},
		{T: 40, Ev: "restart", P: 0},
		{T: 90, Ev: "crash", P: 1}, // after the window
	}
	got := faultSentence(FaultWindow{Label: "crash(0)", From: 30, Until: 40}, evs, 1)
	for _, want := range []string{"p0 crashed having decided 7", "p0 restarted at 40T as a fresh machine"} {
		if !strings.Contains(got, want) {
			t.Errorf("crash sentence %q does not say %q", got, want)
		}
	}
	if strings.Contains(got, "p1") || strings.Contains(got, "nothing the trace shows") {
		t.Errorf("crash sentence %q tells what the crash did not do", got)
	}
}
