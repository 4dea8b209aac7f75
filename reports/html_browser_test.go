package reports

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// browserTimeout bounds one headless-browser run; the browser and its
// children are killed when it passes.
const browserTimeout = 90 * time.Second

// findChromium returns Debian's chromium (or another Chromium build on
// PATH). .ci/run installs it, so its absence fails the test rather
// than skipping it.
func findChromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: .ci/run installs it (apt-get install -y chromium); the report is tested in a real browser")
	return ""
}

// runBrowser runs headless chromium on url with extra flags and returns its
// stdout and stderr. The network is unavailable to it: in a fresh network
// namespace when unshare(1) is usable (root, as in CI), and in any case
// every host name fails to resolve and every proxied connection goes to a
// closed port.
func runBrowser(t *testing.T, chromium, url string, extra ...string) (stdout, stderr string) {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"}
	args = append(append(args, extra...), url)
	prog := chromium
	if unshare, err := exec.LookPath("unshare"); err == nil && os.Geteuid() == 0 && exec.Command(unshare, "--net", "true").Run() == nil {
		args = append([]string{"--net", chromium}, args...)
		prog = unshare
	}
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	// Helpers the browser started may outlive it; end the whole group.
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium did not finish within %v; killed\nstderr:\n%s", browserTimeout, tail(errb.String()))
	}
	if err != nil {
		t.Fatalf("chromium: %v\nstderr:\n%s", err, tail(errb.String()))
	}
	return out.String(), errb.String()
}

func tail(s string) string {
	if len(s) > 4000 {
		return "…" + s[len(s)-4000:]
	}
	return s
}

// consoleError finds what Chromium logs for a script error or a
// console.error call, and failed loads.
var consoleError = regexp.MustCompile(`(?m)^.*(Uncaught|CONSOLE\(\d+\).*[Ee]rror|ERR_[A-Z_]+|Failed to load resource).*$`)

// TestReportInBrowser loads report.html from disk in headless Chromium with
// no network, and checks that its scripts ran without error, its charts and
// tables are in the rendered DOM, a #sort= link sorts, and the screenshot
// is not blank.
func TestReportInBrowser(t *testing.T) {
	chromium := findChromium(t)
	dir := t.TempDir()
	path := filepath.Join(dir, ReportHTML)
	if err := os.WriteFile(path, renderTestReport(t, testFaults), 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + path

	dom, stderr := runBrowser(t, chromium, url+"#sort=summary-table.4.desc", "--dump-dom")
	if m := consoleError.FindString(stderr); m != "" {
		t.Errorf("browser console: %s", m)
	}
	if !strings.Contains(dom, `data-ready="1"`) {
		t.Errorf("the page script did not finish (no data-ready on body)")
	}
	if m := regexp.MustCompile(`<div id="js-errors"[^>]*>([^<]*)<`).FindStringSubmatch(dom); m == nil || strings.TrimSpace(m[1]) != "" {
		t.Errorf("script errors on the page: %v", m)
	}
	charts := strings.Count(dom, `<svg class="chart"`)
	diagrams := strings.Count(dom, `<svg class="lamport"`)
	tables := strings.Count(dom, "<table")
	if charts < 10 || diagrams < 1 || tables < 3 {
		t.Errorf("rendered DOM has %d charts, %d diagrams, %d tables", charts, diagrams, tables)
	}
	// The #sort= link sorted the summary by nodes, descending.
	sorted := regexp.MustCompile(`(?s)<table id="summary-table".*?<tbody>\s*<tr>(?:<td[^>]*>.*?</td>){4}<td[^>]*>(\d+)</td>`).FindStringSubmatch(dom)
	if sorted == nil || sorted[1] != "6" {
		t.Errorf("summary not sorted by nodes descending: first row has %v", sorted)
	}
	if !strings.Contains(dom, `aria-sort="descending"`) {
		t.Error("no column marked as sorted")
	}

	shot := filepath.Join(dir, "shot.png")
	_, stderr = runBrowser(t, chromium, url, "--screenshot="+shot, "--window-size=1280,3000", "--hide-scrollbars")
	if m := consoleError.FindString(stderr); m != "" {
		t.Errorf("browser console: %s", m)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	inked, colours := 0, map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				inked++
			}
			colours[[3]uint32{r >> 12, g >> 12, bl >> 12}] = true
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	if inked < total/50 || len(colours) < 20 {
		t.Errorf("screenshot looks blank: %d of %d sampled pixels inked, %d colours", inked, total, len(colours))
	}
}

// TestComparisonAndHistoryInBrowser loads the comparison page and the
// history index the same way: scripts ran, no error, charts and tables.
func TestComparisonAndHistoryInBrowser(t *testing.T) {
	chromium := findChromium(t)
	hist := makeHistory(t)
	if err := WriteHistoryIndex(hist); err != nil {
		t.Fatal(err)
	}
	base := append(trialsOf("lcr", 8, 44, 46, 44, 48, 44), trialsOf("hs", 8, 80, 84, 82, 86, 88)...)
	newer := append(trialsOf("lcr", 8, 88, 92, 88, 96, 88), trialsOf("hs", 8, 81, 84, 82, 86, 88)...)
	cmpPath := filepath.Join(t.TempDir(), "compare.html")
	if err := WriteCompareHTMLFile(cmpPath, Compare(base, newer, CompareOptions{Threshold: -1}), "base", "new"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		charts int
	}{{filepath.Join(hist, HistoryIndex), 4}, {cmpPath, 0}} {
		dom, stderr := runBrowser(t, chromium, "file://"+tc.path+"#sort=changes.5.desc", "--dump-dom")
		if m := consoleError.FindString(stderr); m != "" {
			t.Errorf("%s: browser console: %s", tc.path, m)
		}
		if !strings.Contains(dom, `data-ready="1"`) || !strings.Contains(dom, `<div id="js-errors" hidden=""></div>`) {
			t.Errorf("%s: script did not finish cleanly", tc.path)
		}
		if got := strings.Count(dom, `<svg class="chart"`); got < tc.charts || !strings.Contains(dom, `class="sortable"`) {
			t.Errorf("%s: %d charts, want %d, and a sortable table", tc.path, got, tc.charts)
		}
	}
}

// layoutProbe is appended to a report before it is opened: once the page
// has loaded it writes into body[data-probe] what the tests check of the
// rendered layout — where the verdict and the key table start, how many
// maintenance arrows and excerpt lines are visible, how many are visible
// after the "show" switch, and which failover charts exist.
const layoutProbe = `<script>window.addEventListener("load",function(){
function top(id){var e=document.getElementById(id);return e?Math.round(e.getBoundingClientRect().top):-1;}
function visible(sel){var n=0;document.querySelectorAll(sel).forEach(function(e){if(e.getClientRects().length>0)n++;});return n;}
var r={verdict:top("verdict"),key:top("key-table"),maint:visible(".maint"),violating:visible("b.violating"),
cdf:document.querySelectorAll('#failover svg.chart').length};
var c=document.querySelector("input.show-maint");if(c){c.checked=true;c.dispatchEvent(new Event("change"));}
r.maintShown=visible(".maint");
document.body.setAttribute("data-probe",JSON.stringify(r));});</script>`

// probeReport renders rows (with a trace, if given) into a page with the
// layout probe, opens it in headless Chromium at 1280×900 and returns
// what the probe saw.
func probeReport(t *testing.T, rows []Row, trace []byte) map[string]int {
	t.Helper()
	chromium := findChromium(t)
	opt := HTMLOptions{Faults: FaultWindows}
	if trace != nil {
		opt.Trace, opt.TraceName = bytes.NewReader(trace), "trace.jsonl"
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, RowsOf(rows), opt); err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(b.String(), "</body>", layoutProbe+"</body>", 1)
	path := filepath.Join(t.TempDir(), ReportHTML)
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, stderr := runBrowser(t, chromium, "file://"+path, "--dump-dom", "--window-size=1280,900", "--virtual-time-budget=5000")
	if m := consoleError.FindString(stderr); m != "" {
		t.Errorf("browser console: %s", m)
	}
	m := regexp.MustCompile(`data-probe="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("the layout probe did not run")
	}
	var got map[string]int
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &got); err != nil {
		t.Fatalf("probe %q: %v", m[1], err)
	}
	return got
}

// The reader's first screenful holds the verdict and the key numbers.
func TestReportFirstScreenful(t *testing.T) {
	rows, trace := readTestRun(t)
	got := probeReport(t, rows, trace)
	if got["verdict"] < 0 || got["verdict"] > 900 || got["key"] < 0 || got["key"] > 900 {
		t.Errorf("verdict at %dpx, key table at %dpx: not both in the first 900px", got["verdict"], got["key"])
	}
}

// A trial that broke safety under heartbeats (bully with T1 = 1.5T and the
// heartbeat detector: testdata/violation) shows the violating decision
// marked, and no heartbeat — neither in the excerpt nor as an arrow of the
// diagram — until the reader asks for them.
func TestReportViolationInBrowser(t *testing.T) {
	rows, err := ReadFile("testdata/violation/results.csv")
	if err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile("testdata/violation/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := probeReport(t, rows, trace)
	t.Logf("probe: %v", got)
	if got["violating"] < 1 {
		t.Errorf("no violating decision marked: %v", got)
	}
	if got["maint"] != 0 || got["maintShown"] == 0 {
		t.Errorf("maintenance visible before the switch: %d, after: %d (want 0, then some)", got["maint"], got["maintShown"])
	}
}

// Leaders crashed (raft and zookeeper, testdata/failover): the failover
// section draws the CDFs.
func TestReportFailoverInBrowser(t *testing.T) {
	rows, err := ReadFile("testdata/failover/results.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := probeReport(t, rows, nil); got["cdf"] != 2 {
		t.Errorf("%d failover charts, want the failover and the detection CDF", got["cdf"])
	}
}
