package workloads

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/electbench/electbench/nodes/bully"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

func TestParseCrash(t *testing.T) {
	// --crash SELECTOR@WHEN is a crash fault with chaos's selector and
	// trigger: written back as a scenario file would write them.
	for in, want := range map[string]string{
		"highest":                                  "highest@start",
		"index:3@5ms":                              "index:3@5ms",
		"random(2)@3T":                             "random(2)@3T",
		"leader@leader-elected":                    "leader@leader-elected",
		"initiator@after-messages:4":               "initiator@after-messages(4)",
		"initiator@after-messages(4)+1T":           "initiator@after-messages(4)+1T",
		"would-be-leader@start":                    "would-be-leader@start",
		"highest,successor(lowest)@election-start": "highest,successor(lowest)@election-start",
	} {
		got, err := ParseCrash(in)
		if err != nil || got.Fault.Kind != "crash" || got.Fault.Target.String()+"@"+got.Fault.Start.String() != want || got.String() != in {
			t.Errorf("ParseCrash(%q) = %+v, %v; want %s", in, got.Fault, err, want)
		}
	}
	for in, want := range map[string]string{
		"tallest": "unknown selector", "index:x": "unknown selector", "random(0)": "k ≥ 1", "leader": "no leader before the run",
		"highest@soon": "is not start, a time", "lowest@after-messages:0": "K ≥ 1",
	} {
		if _, err := ParseCrash(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCrash(%q) error %v; want %q", in, err, want)
		}
	}
}

func withCrash(t *testing.T, s *Spec, crashes ...string) *Spec {
	t.Helper()
	for _, c := range crashes {
		cs, err := ParseCrash(c)
		if err != nil {
			t.Fatal(err)
		}
		s.Crashes = append(s.Crashes, cs)
	}
	return s
}

func TestCrashSelectorMatchingNoProcess(t *testing.T) {
	for crash, want := range map[string]string{
		"index:7":   "position 7 matches no process",
		"random(6)": "random(6) asks for more than the 5",
		"random(5)": "every process would crash",
		"all":       "every process would crash",
	} {
		s := withCrash(t, spec(t, "bully", "5", "random", "lowest", "1ms", 1), crash)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--crash %s: %v; want %q", crash, err, want)
		}
	}
}

// The bully issue: highest crashed at start, only the lowest has detected it:
// ELECTION = N(N−1)/2, OK = (N−1)(N−2)/2, COORDINATOR = N−2, turnaround 4T;
// the second-highest detects: N−2 messages, turnaround 1T. Through the whole
// trial path, with failover measured from the crash at time 0.
func TestBullyTextbookCrash(t *testing.T) {
	for _, n := range []int{3, 5, 8, 16, 33} {
		s := withCrash(t, spec(t, "bully", strconv.Itoa(n), "random", "lowest", "1ms", 2), "highest")
		for _, tr := range s.Plan() {
			r := RunSim(tr, nil)
			N := int64(n)
			if r.MessagesByKind.Get("ELECTION") != N*(N-1)/2 || r.MessagesByKind.Get("OK") != (N-1)*(N-2)/2 ||
				r.MessagesByKind.Get("COORDINATOR") != N-2 || r.TurnaroundT.Get() != 4 || !r.Correct || !r.Live || r.SafetyViolations != 0 {
				t.Fatalf("N=%d: %+v", n, r)
			}
			if r.TheoryMessages.Get() != r.Messages || r.FailoverT.Get() != 4 || r.DetectS.Get() != 0 {
				t.Fatalf("N=%d: theory %v failover %v detect %v", n, r.TheoryMessages, r.FailoverT, r.DetectS)
			}
		}
	}
}

// Bully with T1 below 2T: the lowest's T1 expires before the OK that would
// arrive at 2T, so it declares itself leader while higher processes are
// alive — recorded as a safety violation. With the default T1 = 2T, none.
func TestBullyShortT1ViolatesSafety(t *testing.T) {
	s := spec(t, "bully", "6", "random", "lowest", "1ms", 3)
	for _, tr := range s.Plan() {
		if r := RunSim(tr, nil); r.SafetyViolations != 0 || !r.Correct {
			t.Fatalf("reference model: %+v", r)
		}
	}
	s.Algos[0].Params = map[string]string{"t1": "1.5T"}
	for _, tr := range s.Plan() {
		r := RunSim(tr, nil)
		if r.SafetyViolations == 0 || !strings.Contains(r.Violation, "wrong-leader") {
			t.Fatalf("t1=1.5T: no violation recorded: %+v", r)
		}
		if r.TheoryMessages.IsSet() {
			t.Fatalf("t1=1.5T: the default-timer figure %d was reported", r.TheoryMessages.Get())
		}
	}
}

// An inaccurate detector's false suspicions make bully elect a lower process
// while a higher one is alive, and cut live processes out of a repaired ring
// (ALGORITHMS.md, "Ring repair": the N80 example).
func TestFalseSuspicionsViolateSafety(t *testing.T) {
	for _, algo := range []string{"bully", "ring"} {
		s := spec(t, algo, "8", "random", "all", "1ms", 20)
		det, err := trial.ParseDetector("inaccurate(300,0,2T,20T)", trial.Constant(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		s.Detector = det
		violations := 0
		for _, tr := range s.Plan() {
			violations += RunSim(tr, nil).SafetyViolations
		}
		if violations == 0 {
			t.Errorf("%s: 20 trials with false suspicions recorded no violation", algo)
		}
	}
}

// A missed crash (an incomplete detector) leaves a ring election without a
// leader: not live. With a perfect detector fast enough to suspect the crash
// before the election reaches it, the repaired ring elects.
func TestMissedCrashIsNotLive(t *testing.T) {
	run := func(detector string) reports.Row {
		s := withCrash(t, spec(t, "ring", "6", "ascending", "lowest", "1ms", 1), "index:2")
		det, err := trial.ParseDetector(detector, trial.Constant(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		s.Detector = det
		return RunSim(s.Plan()[0], nil)
	}
	if r := run("perfect(0.5T)"); !r.Live || !r.Correct || r.Leader != "6" {
		t.Fatalf("perfect detector: %+v", r)
	}
	r := run("inaccurate(0,1,0.5T)")
	if r.Live || r.Correct || !strings.Contains(r.Violation, "undecided") {
		t.Fatalf("missed crash: %+v", r)
	}
}

// Same seed, same bytes, across detectors and crash modes (the bully issue).
func TestDeterministicAcrossDetectorsAndCrashes(t *testing.T) {
	for _, det := range []string{"perfect(2T)", "heartbeat(1T,3T)", "inaccurate(100,0.2,2T,20T)"} {
		for _, crash := range []string{"highest", "leader@leader-elected", "random(2)@3T", "initiator@after-messages:3"} {
			s := withCrash(t, spec(t, "bully,bully/two-phase,multicast,ring,chang-roberts", "5,9", "random", "random(2)", "uniform(1ms,3ms)", 3), crash)
			d, err := trial.ParseDetector(det, s.Latency)
			if err != nil {
				t.Fatal(err)
			}
			s.Detector = d
			a, b := runCSV(t, s, 2), runCSV(t, s, 1)
			if !bytes.Equal(a, b) {
				t.Fatalf("%s, --crash %s: two runs differ", det, crash)
			}
		}
	}
}

// The reference figures assume perfect(10T): naming it explicitly must not
// hide them, and another detector must.
func TestTheoryWithExplicitDefaultDetector(t *testing.T) {
	for det, want := range map[string]bool{"perfect(10T)": true, "perfect(10ms)": true, "perfect(3T)": false, "heartbeat(1T,3T)": false} {
		s := withCrash(t, spec(t, "bully", "5", "random", "lowest", "1ms", 1), "highest")
		d, err := trial.ParseDetector(det, trial.Constant(time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		s.Detector = d
		if r := RunSim(s.Plan()[0], nil); r.TheoryMessages.IsSet() != want {
			t.Errorf("--detector %s: theory_messages set = %v, want %v", det, r.TheoryMessages.IsSet(), want)
		}
	}
}
