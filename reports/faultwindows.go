package reports

import (
	"math"
	"strings"
	"time"
)

// FaultWindows reads a row's faults column — the schedule the trial applied,
// "t=2ms:partition(halves)[0,1|2,3];t=12ms:heal partition(halves)" — into
// windows in units of T for shading time axes (HTMLOptions.Faults). A fault
// starts a window; "heal NAME" ends the latest open window of that fault, and
// "resume(p)" or "restart(p)" the latest open window on the same processes
// (a pause, a crash). A window never ended lasts to the end of the trial.
func FaultWindows(r *Row) []FaultWindow {
	if r.Faults == "" || r.TS <= 0 {
		return nil
	}
	var out []FaultWindow
	var open []int // indexes into out, oldest first
	closeLatest := func(match func(label string) bool, at float64) {
		for i := len(open) - 1; i >= 0; i-- {
			if w := &out[open[i]]; match(w.Label) {
				w.Until = at
				open = append(open[:i], open[i+1:]...)
				return
			}
		}
	}
	for _, entry := range strings.Split(r.Faults, ";") {
		when, what, ok := strings.Cut(strings.TrimPrefix(entry, "t="), ":")
		d, err := time.ParseDuration(when)
		if !ok || err != nil {
			continue // not a schedule entry this version knows
		}
		at := d.Seconds() / r.TS
		switch verb, targets, _ := strings.Cut(what, "("); {
		case strings.HasPrefix(what, "heal "):
			name := strings.TrimPrefix(what, "heal ")
			closeLatest(func(l string) bool { return strings.HasPrefix(l, name) }, at)
		case verb == "resume" || verb == "restart":
			closeLatest(func(l string) bool { return strings.HasSuffix(l, "("+targets) }, at)
		default:
			out = append(out, FaultWindow{From: at, Until: math.Inf(1), Label: what})
			open = append(open, len(out)-1)
		}
	}
	return out
}
