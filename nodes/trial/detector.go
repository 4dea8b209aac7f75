package trial

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Detector is the failure detector the runtime runs for every process. An
// algorithm learns of failures only through Machine.Suspect (ALGORITHMS.md,
// "Failure detectors"). Every suspicion is counted as a SUSPECT timeout.
type Detector struct {
	Kind string // perfect, heartbeat or inaccurate

	// D is the delay from a crash to its suspicion (perfect, inaccurate).
	D time.Duration
	// P is the heartbeat period and Tau the silence after which a peer is
	// suspected (heartbeat). Pings are PING and PING_ACK messages on the same
	// links as the algorithm's, so latency and faults delay them too.
	P, Tau time.Duration
	// Lambda is the rate of false suspicions per process per second, and
	// Window the time from the start during which they happen (inaccurate).
	Lambda float64
	Window time.Duration
	// Mu is the probability that a given process never suspects a given
	// crash (inaccurate): an incomplete detector.
	Mu float64
	// pText and tauText are P and τ as written (heartbeat, parsed): In
	// reads them again in another unit.
	pText, tauText string
}

// In is the detector as processes that read their parameters in unit run
// it, on links of latency lat. A heartbeat detector runs in the processes
// themselves, so its period and timeout, where written in T or D, are read
// in that unit as the algorithm's timeouts are: live, T plus the runtime's
// processing allowance, without which a heartbeat(1T,4T) at T = 1 ms took
// the host's scheduling delays for silence and had every process suspect
// live peers of its own side 4 ms into the run. The perfect and inaccurate
// detectors are the runtime's oracle and keep their times, as a fault's
// schedule does. With unit T (the simulator's reference model) nothing
// changes.
func (d Detector) In(lat Latency, unit time.Duration) Detector {
	if d.Kind != "heartbeat" || d.pText == "" || unit == lat.Mean() {
		return d
	}
	bound := lat.Bound() + unit - lat.Mean()
	if p, err := nodes.ParseDuration(d.pText, unit, bound); err == nil && p > 0 {
		d.P = p
	}
	if tau, err := nodes.ParseDuration(d.tauText, unit, bound); err == nil && tau > 0 {
		d.Tau = tau
	}
	return d
}

// The failure detectors' own message kinds and the timer every suspicion is
// counted as: the runtimes register none of their own.
var (
	KindPing     = nodes.RegisterKind("PING", nodes.MaintenanceClass)
	KindPingAck  = nodes.RegisterKind("PING_ACK", nodes.MaintenanceClass)
	TimerSuspect = nodes.RegisterTimer("SUSPECT", nodes.ElectionClass) // a suspicion is the election's: counted in `timeouts`
)

// DefaultDetector is perfect(10T): ALGORITHMS.md's perfect detector with the
// delay the bully issue prescribes, long enough that a textbook election ends
// before anyone but the initiators has noticed.
func DefaultDetector(t time.Duration) Detector { return Detector{Kind: "perfect", D: 10 * t} }

// IsDefault reports whether d behaves as DefaultDetector(t) — the detector
// ALGORITHMS.md's reference figures assume — whatever fields it does not use
// are set to (a parsed perfect(10T) carries an unused false-suspicion window).
func (d Detector) IsDefault(t time.Duration) bool {
	return d.Kind == "" || d.Kind == "perfect" && d.D == 10*t
}

func (d Detector) String() string {
	switch d.Kind {
	case "heartbeat":
		return "heartbeat(" + d.P.String() + "," + d.Tau.String() + ")"
	case "inaccurate":
		return fmt.Sprintf("inaccurate(%g,%g,%v,%v)", d.Lambda, d.Mu, d.D, d.Window)
	}
	return "perfect(" + d.D.String() + ")"
}

var detectorRE = regexp.MustCompile(`^([a-z]+)\((.*)\)$`)

// ParseDetector reads perfect(D), heartbeat(P,τ) or inaccurate(λ,μ[,D[,W]])
// for links of latency lat; durations as 5ms or in units of its mean T (10T)
// or of its delay bound (2D; not to be confused with the perfect detector's
// own delay D). λ is false suspicions per process per second during the
// first W (default 50T); μ the probability of missing a crash; D defaults
// to 10T.
func ParseDetector(spec string, lat Latency) (Detector, error) {
	t := lat.Mean()
	s := strings.TrimSpace(spec)
	m := detectorRE.FindStringSubmatch(s)
	if m == nil {
		return Detector{}, fmt.Errorf("detector %q: want perfect(D), heartbeat(P,τ) or inaccurate(λ,μ[,D[,W]])", spec)
	}
	var args []string
	if strings.TrimSpace(m[2]) != "" {
		for _, a := range strings.Split(m[2], ",") {
			args = append(args, strings.TrimSpace(a))
		}
	}
	dur := func(i int, what string) (time.Duration, error) {
		d, err := nodes.ParseDuration(args[i], t, lat.Bound())
		if err != nil {
			return 0, fmt.Errorf("detector %q: %s: %w", spec, what, err)
		}
		if d <= 0 {
			return 0, fmt.Errorf("detector %q: %s must be positive", spec, what)
		}
		return d, nil
	}
	num := func(i int, what string, lo, hi float64) (float64, error) {
		v, err := strconv.ParseFloat(args[i], 64)
		if err != nil || v < lo || v > hi {
			return 0, fmt.Errorf("detector %q: %s must be a number in [%g, %g], got %q", spec, what, lo, hi, args[i])
		}
		return v, nil
	}
	d := Detector{Kind: m[1], D: 10 * t, Window: 50 * t}
	var err error
	switch m[1] {
	case "perfect":
		if len(args) > 1 {
			return Detector{}, fmt.Errorf("detector %q: perfect takes one duration D", spec)
		}
		if len(args) == 1 {
			if d.D, err = dur(0, "D"); err != nil {
				return Detector{}, err
			}
		}
	case "heartbeat":
		if len(args) != 2 {
			return Detector{}, fmt.Errorf("detector %q: heartbeat takes a period P and a timeout τ", spec)
		}
		if d.P, err = dur(0, "period P"); err != nil {
			return Detector{}, err
		}
		if d.Tau, err = dur(1, "timeout τ"); err != nil {
			return Detector{}, err
		}
		if d.Tau <= d.P {
			// A peer is heard at best every P: with τ ≤ P every process
			// suspects every other between two heartbeats, and the run
			// measures the detector, not the algorithm.
			return Detector{}, fmt.Errorf("detector %q: the timeout τ (%s) must exceed the period P (%s), or every process suspects every other between two heartbeats", spec, args[1], args[0])
		}
		d.pText, d.tauText = args[0], args[1]
	case "inaccurate":
		if len(args) < 2 || len(args) > 4 {
			return Detector{}, fmt.Errorf("detector %q: inaccurate takes λ, μ and optionally D and W", spec)
		}
		if d.Lambda, err = num(0, "λ (false suspicions per process per second)", 0, 1e9); err != nil {
			return Detector{}, err
		}
		if d.Mu, err = num(1, "μ (probability of missing a crash)", 0, 1); err != nil {
			return Detector{}, err
		}
		if len(args) > 2 {
			if d.D, err = dur(2, "D"); err != nil {
				return Detector{}, err
			}
		}
		if len(args) > 3 {
			if d.Window, err = dur(3, "W"); err != nil {
				return Detector{}, err
			}
		}
	default:
		return Detector{}, fmt.Errorf("detector %q: unknown detector %q (known: heartbeat, inaccurate, perfect)", spec, m[1])
	}
	return d, nil
}
