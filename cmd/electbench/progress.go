package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/reports"
)

// progress follows a run trial by trial. On a terminal it draws a bar with
// github.com/vbauerster/mpb/v8 (a maintained multi-bar library that redraws
// in place, with rates and ETAs); anywhere else it writes a plain line now
// and then, so logs stay readable and stdout stays clean for the machine
// formats (progress only ever writes to stderr).
type progress interface {
	Done(r reports.Row) // a trial finished and its row was written
	// Setup: a live trial's set-up moved on (harness.Options.Progress);
	// trial is its number among its configuration's (the trial column),
	// or -1 if unknown.
	Setup(s harness.Setup, trial int)
	Close() // the run ended, complete or not
}

// logEvery is the least time between two progress lines off a terminal.
const logEvery = 10 * time.Second

// newProgress chooses bars when w is a terminal, occasional lines otherwise.
// total is the number of trials that will run; e predicts the time left.
func newProgress(w io.Writer, total int, e estimator) progress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && total > 0 {
		// A terminal that reports no width (some ptys) would get no bar at all.
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return newBarProgress(w, total, e)
		}
	}
	l := &logProgress{w: w, total: total, start: time.Now(), last: time.Now(), every: logEvery, now: time.Now, eta: e}
	l.tick()
	return l
}

// estimator predicts the time a run has left at a time, and says false
// while it cannot tell (workloads.ETA, which the executor keeps).
type estimator interface {
	Remaining(now time.Time) (time.Duration, bool)
}

// left prints the time e predicts at now, or "?" while it cannot tell.
func left(e estimator, now time.Time) string {
	d, ok := e.Remaining(now)
	if !ok {
		return "?"
	}
	return d.Round(time.Second).String()
}

// setupLine says what a live trial's set-up is doing, as "raft n=64 trial
// 3: linking 2,100/4,032" (links up of the trial's): short, to fit beside
// a bar on 80 columns.
func setupLine(s harness.Setup, trial int) string {
	what := fmt.Sprintf("%s n=%d", s.Algorithm, s.Nodes)
	if trial >= 0 {
		what += fmt.Sprintf(" trial %d", trial)
	}
	count := func(n int) string { return humanize.Comma(int64(n)) }
	switch s.Stage {
	case harness.Starting:
		return fmt.Sprintf("%s: starting processes %s/%s", what, count(s.Done), count(s.Total))
	case harness.Proxying:
		if s.Done < s.Total {
			return fmt.Sprintf("%s: proxies (making %s, kept %s)", what, count(s.Made), count(s.Kept))
		}
		return fmt.Sprintf("%s: proxies ready (made %s, kept %s)", what, count(s.Made), count(s.Kept))
	case harness.Linking:
		return fmt.Sprintf("%s: linking %s/%s", what, count(s.Done), count(s.Total))
	}
	return what + ": " + s.Stage.String()
}

// barProgress is one bar for all trials, naming the configuration running
// and counting failing trials.
type barProgress struct {
	p       *mpb.Progress
	bar     *mpb.Bar
	mu      sync.Mutex // current and failing, which the bar's goroutine reads
	current string
	failing int
	done    int
	total   int
	start   time.Time
	eta     estimator
}

func newBarProgress(w io.Writer, total int, e estimator) *barProgress {
	b := &barProgress{total: total, start: time.Now(), eta: e}
	b.p = mpb.New(mpb.WithOutput(w), mpb.WithAutoRefresh(), mpb.WithWidth(32), mpb.WithRefreshRate(120*time.Millisecond))
	// The bar fills by the run's estimated cost done (share), not by
	// trials: a sweep's last trials are its largest.
	b.bar = b.p.AddBar(barSteps,
		mpb.PrependDecorators(
			decor.Name("trials ", decor.WCSyncSpaceR),
			decor.Any(func(decor.Statistics) string {
				b.mu.Lock()
				defer b.mu.Unlock()
				return fmt.Sprintf("%d/%d", b.done, b.total)
			}, decor.WCSyncWidth),
		),
		mpb.AppendDecorators(
			decor.Percentage(decor.WC{W: 5}),
			decor.Any(func(decor.Statistics) string {
				b.mu.Lock()
				defer b.mu.Unlock()
				s := " · " + b.current + " · about " + left(b.eta, time.Now()) + " left"
				if b.failing > 0 {
					s += fmt.Sprintf(" · %d failing", b.failing)
				}
				return s
			}),
		),
	)
	return b
}

func (b *barProgress) Done(r reports.Row) {
	b.mu.Lock()
	b.done++
	b.current = fmt.Sprintf("%s n=%d", r.Algorithm, r.Nodes)
	if !r.Correct || !r.Live || r.SafetyViolations > 0 || r.Error != "" {
		b.failing++
	}
	done, total := b.done, b.total
	b.mu.Unlock()
	step := int64(barSteps)
	if done < total {
		step = int64(share(b.eta, b.start, time.Now(), done, total) * barSteps)
	}
	b.bar.SetCurrent(max(step, b.bar.Current()))
}

// barSteps is the bar's resolution: a thousandth of the run's cost.
const barSteps = 1000

// share is the part of the run done at now: the time elapsed over the
// time elapsed and the time e predicts left (the run's estimated cost),
// or done of total trials while e cannot tell.
func share(e estimator, start, now time.Time, done, total int) float64 {
	if rem, ok := e.Remaining(now); ok {
		elapsed := now.Sub(start)
		if elapsed+rem > 0 {
			return float64(elapsed) / float64(elapsed+rem)
		}
	}
	if total == 0 {
		return 0
	}
	return float64(done) / float64(total)
}

func (b *barProgress) Setup(s harness.Setup, trial int) {
	b.mu.Lock()
	b.current = setupLine(s, trial)
	b.mu.Unlock()
}

func (b *barProgress) Close() {
	if !b.bar.Completed() {
		// Interrupted: leave the bar where it stopped.
		b.bar.Abort(false)
	}
	b.p.Wait()
}

// logProgress writes "progress: 1200/5000 trials (24% of the estimated
// work), 35s elapsed, about 1m50s left" at most once per every, as trials finish, a live trial's
// set-up moves on (then saying where it is) or every passes; a run
// shorter than that writes nothing.
type logProgress struct {
	mu          sync.Mutex // Setup comes from the live harness's goroutine
	w           io.Writer
	total, done int
	failing     int
	start, last time.Time
	every       time.Duration
	now         func() time.Time
	eta         estimator
	stop        chan struct{} // closed by Close: the ticker ends
	ticking     sync.WaitGroup
	setup       string // where the live set-up under way is, as its last line said; "" if none
}

func (l *logProgress) Done(r reports.Row) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done++
	if !r.Correct || !r.Live || r.SafetyViolations > 0 || r.Error != "" {
		l.failing++
	}
	now := l.now()
	l.setup = ""
	l.line(now, "")
}

func (l *logProgress) Setup(s harness.Setup, trial int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.Stage == harness.Running {
		l.setup = "" // the run's own time is the trial's, told when it ends
		return
	}
	l.setup = fmt.Sprintf("; setting up %s (%v so far)", setupLine(s, trial), s.Elapsed.Round(time.Second/10))
	l.line(l.now(), l.setup)
}

// line writes the progress line, followed by more, if every has passed
// since the last one.
func (l *logProgress) line(now time.Time, more string) {
	if now.Sub(l.last) < l.every || l.total == 0 {
		return
	}
	l.last = now
	fmt.Fprintf(l.w, "progress: %d/%d trials (%d%% of the estimated work), %d failing, %v elapsed, about %s left%s\n",
		l.done, l.total, int(100*share(l.eta, l.start, now, l.done, l.total)), l.failing, now.Sub(l.start).Round(time.Second), left(l.eta, now), more)
}

// tick writes the progress line every `every` while the run goes on, so
// that a long trial, or a few, do not leave the log silent (the ETA moves
// with the events they process).
func (l *logProgress) tick() {
	l.stop = make(chan struct{})
	l.ticking.Go(func() {
		t := time.NewTicker(l.every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				l.mu.Lock()
				l.line(l.now(), l.setup)
				l.mu.Unlock()
			case <-l.stop:
				return
			}
		}
	})
}

func (l *logProgress) Close() {
	if l.stop != nil {
		close(l.stop)
		l.ticking.Wait()
	}
}
