package main

import (
	"bufio"
	"context"
	"fmt"
	"html"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The explorer is tested in a real browser, by driving its controls
// through the Chrome DevTools Protocol (chromedp, a Go CDP client: no Node)
// with Debian's chromium, which .ci/run installs; its absence fails the
// test rather than skipping it. One browser serves every check, and the
// network is unavailable to it (every host name fails to resolve, every
// proxied connection goes to a closed port): the page must need none.

// exploreCLI runs electbench with args in-process and returns its error.
func exploreCLI(t *testing.T, args ...string) error {
	t.Helper()
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	return cmd.Execute()
}

// browser starts headless chromium and returns a context to drive it.
func browser(t *testing.T) context.Context {
	t.Helper()
	var chromium string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Fatal("no chromium on PATH: .ci/run installs it (apt-get install -y chromium); the explorer is tested in a real browser")
	}
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1600, 1200),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"), chromedp.Flag("proxy-server", "127.0.0.1:9"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancelCtx(); cancelAlloc() })
	return ctx
}

// open loads an explorer page and waits for its script to have drawn it;
// a script error fails the test.
func open(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page),
		chromedp.WaitReady(chromedp.CSS(`body[data-explore-ready="1"]`))); err != nil {
		t.Fatalf("loading %s: %v", page, err)
	}
	errs := eval[string](t, ctx, `document.getElementById("js-errors").textContent`)
	if errs != "" {
		t.Fatalf("the page's script failed: %s", errs)
	}
}

// at is what the page shows at its cursor: the cursor, who believes they
// lead, and the state table.
type at struct {
	cursor           int
	leaders, state   string
	diagram, current string
}

func look(t *testing.T, ctx context.Context) at {
	t.Helper()
	return at{
		cursor:  eval[int](t, ctx, `__explore.cursor()`),
		leaders: eval[string](t, ctx, `document.getElementById("ex-leaders").textContent`),
		state:   eval[string](t, ctx, `document.querySelector("#ex-state tbody").innerText`),
		diagram: eval[string](t, ctx, `document.getElementById("ex-diagram").textContent`),
		current: eval[string](t, ctx, `document.getElementById("ex-now").textContent`),
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

func click(t *testing.T, ctx context.Context, button string, times int) {
	t.Helper()
	for range times {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(button))); err != nil {
			t.Fatalf("clicking %s: %v", button, err)
		}
	}
}

// exploreLine is the explore command beside a traced trial in report.html.
var exploreLine = regexp.MustCompile(`Step through it, event by event: <code>([^<]*)</code>`)

func TestExploreInBrowser(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	// bully-short-t1 breaks safety (exit 1): its trial 0 is the one explored.
	if err := exploreCLI(t, "run", "bully-short-t1", "--trial", "bully-short-t1/bully/classic/6/0", "--out", run); err == nil {
		t.Fatal("bully-short-t1 trial 0 passed; its T1 is too short for it to")
	}
	// The report's failing-trial card says how to explore the trial: that
	// command writes the page the browser drives.
	report, err := os.ReadFile(filepath.Join(run, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	m := exploreLine.FindSubmatch(report)
	if m == nil {
		t.Fatal("the report of a traced failing trial has no explore command")
	}
	words, err := shellWords(html.UnescapeString(string(m[1])))
	if err != nil || len(words) < 2 || words[0] != "electbench" || words[1] != "explore" {
		t.Fatalf("the report's explore line %q is no explore command (%v)", m[1], err)
	}
	bully := filepath.Join(dir, "bully.html")
	if err := exploreCLI(t, append(words[1:], "-o", bully)...); err != nil {
		t.Fatalf("%s: %v", m[1], err)
	}
	big := filepath.Join(dir, "big", "trace.jsonl")
	writeBigTrace(t, big, 50000)
	bigPage := filepath.Join(dir, "big.html")
	if err := exploreCLI(t, "explore", big, "-o", bigPage); err != nil {
		t.Fatal(err)
	}
	paused := filepath.Join(dir, "paused")
	if err := exploreCLI(t, "run", "paused-leader", "--trial", "paused-leader/bully/classic/5/0", "--out", paused); err == nil {
		t.Fatal("paused-leader trial 0 passed; its paused leader is suspected and replaced")
	}
	if err := exploreCLI(t, "explore", paused, "-o", paused+".html"); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t)
	t.Run("violation", func(t *testing.T) { exploreViolation(t, ctx, bully) })
	t.Run("paused", func(t *testing.T) {
		// Opened at its violation (#violation): p3 (id 4) decides itself
		// while p4 (id 5), the old leader, is paused still believing it
		// leads, as it will when it wakes.
		open(t, ctx, paused+".html#violation")
		if a := look(t, ctx); a.leaders != "Believe they lead: p3 (id 4), p4 (id 5) (paused)" {
			t.Errorf("at paused-leader's violation (event %d: %s) the page shows %q", a.cursor, a.current, a.leaders)
		}
	})
	t.Run("responsive", func(t *testing.T) { exploreResponsive(t, ctx, bigPage) })
}

// exploreViolation steps to bully-short-t1's violation: p4 (id 1), whose
// T1 fired before the OKs of higher processes came, decides itself while
// p5 (id 6), the highest, has already decided itself. Both are shown as
// leading there; one step back only p5 is, and that state is the one
// stepping forward from the start reaches.
func exploreViolation(t *testing.T, ctx context.Context, page string) {
	open(t, ctx, page)
	first := look(t, ctx)
	for _, want := range []string{"p4", "id 1", "p5", "id 6", "ELECTION"} {
		if !strings.Contains(first.diagram, want) {
			t.Errorf("the diagram at the start has no %q: lanes are labelled with ids, arrows with kinds", want)
		}
	}
	click(t, ctx, "#ex-violation", 1)
	v := look(t, ctx)
	if v.leaders != "Believe they lead: p4 (id 1), p5 (id 6)" {
		t.Errorf("at the violation (event %d: %s) the page shows %q; want p4 (id 1) and p5 (id 6) both leading", v.cursor, v.current, v.leaders)
	}
	if !strings.Contains(v.current, "the violation") || !strings.Contains(v.current, "decides leader p4 (id 1)") {
		t.Errorf("the cursor's event at the violation reads %q", v.current)
	}
	click(t, ctx, "#ex-back", 1)
	back := look(t, ctx)
	if back.cursor != v.cursor-1 || back.leaders != "Believe they lead: p5 (id 6)" {
		t.Errorf("one step back: event %d, %q; want event %d with only p5 (id 6) leading", back.cursor, back.leaders, v.cursor-1)
	}
	click(t, ctx, "#ex-start", 1)
	click(t, ctx, "#ex-fwd", back.cursor)
	fwd := look(t, ctx)
	if fwd.cursor != back.cursor || fwd.state != back.state || fwd.leaders != back.leaders {
		t.Errorf("stepping back from the violation shows\n%s\nbut stepping forward to event %d from the start shows (event %d)\n%s", back.state, back.cursor, fwd.cursor, fwd.state)
	}
	click(t, ctx, "#ex-fwd", 1)
	if again := look(t, ctx); again.state != v.state {
		t.Errorf("stepping forward again to the violation shows\n%s\nwant\n%s", again.state, v.state)
	}
	// The kind filter hides a kind's arrows and skips its events.
	click(t, ctx, `input.ex-kind[data-kind="ELECTION"]`, 1)
	if hidden := look(t, ctx); strings.Contains(hidden.diagram, "ELECTION") {
		t.Error("ELECTION arrows are still drawn with ELECTION unticked")
	}
}

// exploreResponsive steps through a 50,000-event trace: forward and back
// by event, to the next message and fault, and across it on the slider.
// Each step's time is measured in the page (performance.now() around the
// state's update and the diagram's redraw and layout); the median of many
// must be under 100 ms, a figure a loaded CI machine meets with room.
func exploreResponsive(t *testing.T, ctx context.Context, page string) {
	open(t, ctx, page)
	// Heartbeats, hidden by default, are shown: every event is a step.
	click(t, ctx, `input.ex-kind[data-kind="HEARTBEAT"]`, 1)
	click(t, ctx, "#ex-fwd", 60)
	click(t, ctx, "#ex-back", 20)
	click(t, ctx, "#ex-next-msg", 10)
	click(t, ctx, "#ex-next-fault", 10)
	// The slider, dragged across the trial: jumps the snapshots serve.
	ms := eval[[]float64](t, ctx, `(function(){var s=document.getElementById("ex-slider");
for(var v=49999;v>0;v-=2473){s.value=v;s.dispatchEvent(new Event("input"));}return __explore.stepMs;})()`)
	if len(ms) < 100 {
		t.Fatalf("%d steps timed; want at least 100", len(ms))
	}
	slices.Sort(ms)
	median, worst := ms[len(ms)/2], ms[len(ms)-1]
	t.Logf("%d steps over 50,000 events: median %.2f ms, slowest %.2f ms (%v)", len(ms), median, worst, ms[len(ms)-5:])
	if median >= 100 {
		t.Errorf("the median step over 50,000 events took %.1f ms; want under 100 ms", median)
	}
	if a := look(t, ctx); a.cursor < 0 || !strings.Contains(a.diagram, "HEARTBEAT(") {
		t.Errorf("after the slider, event %d and a diagram without messages: %.200s", a.cursor, a.diagram)
	}
}

// writeBigTrace writes a raft-like trial of eight processes with exactly
// events events: a leader's heartbeats and their acks, an election each
// time it crashes (a fault), a lost message now and then.
func writeBigTrace(t *testing.T, path string, events int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	const n = 8
	fmt.Fprintf(w, `{"trial":0,"algorithm":"raft","variant":"default","nodes":%d,"seed":1,"scenario":"big"}`+"\n", n)
	left, id, now, leader, term := events, 0, int64(0), 0, 1
	emit := func(format string, args ...any) {
		if left > 0 {
			fmt.Fprintf(w, `{"t":%d,`+format+"}\n", append([]any{now}, args...)...)
			left--
		}
	}
	for p := range n {
		emit(`"ev":"start","p":%d`, p)
	}
	for round := 0; left > 0; round++ {
		now += 1e6
		if round%50 == 49 { // the leader crashes, another is elected in the next term
			emit(`"ev":"fault","what":"crash(%d)"`, leader)
			emit(`"ev":"crash","p":%d`, leader)
			next := (leader + 1) % n
			term++
			emit(`"ev":"timer","p":%d,"timer":"ELECTION_TIMEOUT"`, next)
			for q := range n {
				if q != next && q != leader {
					id++
					emit(`"ev":"send","id":%d,"from":%d,"to":%d,"kind":"REQUEST_VOTE","rank":"%d","a":%d`, id, next, q, next+1, term)
					emit(`"ev":"recv","id":%d,"from":%d,"to":%d,"kind":"REQUEST_VOTE","rank":"%d","a":%d`, id, next, q, next+1, term)
				}
			}
			emit(`"ev":"decide","p":%d,"leader":"%d"`, next, next+1)
			emit(`"ev":"restart","p":%d`, leader)
			emit(`"ev":"fault","what":"restart(%d)"`, leader)
			leader = next
			continue
		}
		for q := range n {
			if q == leader {
				continue
			}
			id++
			emit(`"ev":"send","id":%d,"from":%d,"to":%d,"kind":"HEARTBEAT","rank":"%d","a":%d`, id, leader, q, leader+1, term)
			if (id % 97) == 0 {
				emit(`"ev":"lose","id":%d,"from":%d,"to":%d,"kind":"HEARTBEAT","rank":"%d","a":%d`, id, leader, q, leader+1, term)
				continue
			}
			emit(`"ev":"recv","id":%d,"from":%d,"to":%d,"kind":"HEARTBEAT","rank":"%d","a":%d`, id, leader, q, leader+1, term)
			emit(`"ev":"decide","p":%d,"leader":"%d"`, q, leader+1)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
