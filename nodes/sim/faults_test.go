package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// recorder is a Sink of decisions and crashes that keeps what it is told.
type recorder struct{ log []string }

func (r *recorder) Kinds() trial.Kinds { return trial.KindsOf(trial.EvDecide, trial.EvCrash) }

func (r *recorder) Event(e *trial.Event) {
	switch e.Kind {
	case trial.EvDecide:
		r.log = append(r.log, "decide "+e.At.String())
	case trial.EvCrash:
		r.log = append(r.log, "crash "+e.At.String()+" "+nodes.RankOf(uint64(e.P)).String())
	default:
		r.log = append(r.log, "unwanted "+e.Kind.String())
	}
}

// suspecter records every delivery as "recv@id time" and every suspicion as
// "observer>suspect@time"; told to initiate, it pings every other process.
func suspecter(log *[]string) *nodes.Algorithm {
	script := func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		switch ev {
		case "initiate":
			for _, q := range env.Peers() {
				if q.Rank != env.Self() {
					env.Send(q.ID, nodes.Message{Kind: kPing})
				}
			}
		case "recv":
			*log = append(*log, "recv@"+env.Self().String()+" "+env.Now().String())
		}
	}
	a := algo(log, script)
	a.New = func(nodes.Config) (func() nodes.Machine, error) {
		return func() nodes.Machine { return &suspectProbe{probe{log: log, script: script}} }, nil
	}
	return a
}

// suspectProbe logs suspicions; ranks are position+1 in these tests.
type suspectProbe struct{ probe }

func (p *suspectProbe) Suspect(env nodes.Env, q nodes.PeerID) {
	*p.log = append(*p.log, env.Self().String()+">"+nodes.RankOf(uint64(q)+1).String()+"@"+env.Now().String())
}

func runLog(t *testing.T, cfg trial.Config) (*trial.Record, string) {
	t.Helper()
	var log []string
	cfg.Algorithm = suspecter(&log)
	if cfg.Latency == nil {
		cfg.Latency = trial.Constant(time.Millisecond)
	}
	if cfg.Ranks.Len() == 0 {
		cfg.Ranks = nodes.RanksOf(ranks(4))
	}
	res, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res, strings.Join(log, " ")
}

// The bully issue: with crash@start, "at time 0 exactly the initiators'
// detectors suspect it, and every other process's detector follows the
// chosen model — default perfect(D) with D = 10T".
func TestCrashAtStartAndPerfectDetector(t *testing.T) {
	res, log := runLog(t, trial.Config{Initiators: []int{0}, Faults: []trial.Fault{trial.CrashFault(3, trial.When{Trigger: trial.AtStart})}})
	want := "1>4@0s recv@2 1ms recv@3 1ms 2>4@10ms 3>4@10ms"
	if log != want {
		t.Fatalf("log %q\nwant %q", log, want)
	}
	if res.Dropped != 1 || res.Messages != 3 || res.Fired[timerSusp] != 3 || res.Alive[3] {
		t.Fatalf("dropped %d messages %d suspicions %d alive %v", res.Dropped, res.Messages, res.Fired[timerSusp], res.Alive)
	}
	if c := res.Crashes[0]; c.Pos != 3 || c.At != 0 || !c.WasLeader || c.FirstSuspicion != 0 {
		t.Fatalf("crash record %+v", c)
	}
	_, log = runLog(t, trial.Config{Initiators: []int{0}, Faults: []trial.Fault{trial.CrashFault(3, trial.When{Trigger: trial.AtStart})}, Detector: trial.Detector{Kind: "perfect", D: 3 * time.Millisecond}})
	if !strings.Contains(log, "2>4@3ms") {
		t.Fatalf("perfect(3ms): %q", log)
	}
}

func TestCrashTriggers(t *testing.T) {
	// At a time: messages arriving after it are dropped.
	res, _ := runLog(t, trial.Config{Initiators: []int{0}, Faults: []trial.Fault{trial.CrashFault(1, trial.When{Trigger: trial.AtTime, At: time.Millisecond / 2})}})
	if res.Dropped != 1 || res.Crashes[0].At != time.Millisecond/2 || res.Crashes[0].WasLeader {
		t.Fatalf("at time: %+v", res.Crashes)
	}
	// After K election messages: the crash follows the handler that sent the
	// K-th message, at the same instant.
	res, _ = runLog(t, trial.Config{Initiators: []int{0}, Faults: []trial.Fault{trial.CrashFault(2, trial.When{Trigger: trial.AfterMessages, K: 2})}})
	if res.Crashes[0].At != 0 || res.Dropped != 1 {
		t.Fatalf("after-messages: %+v dropped %d", res.Crashes, res.Dropped)
	}
	// When a leader is elected, CurrentLeader is whoever was decided.
	var obs recorder
	a := algo(nil, func(p *probe, env nodes.Env, ev string, from nodes.PeerID, m nodes.Message) {
		if ev == "initiate" {
			env.Decide(nodes.RankOf(2))
		}
	})
	res, err := Run(trial.Config{Algorithm: a, Ranks: nodes.RanksOf(ranks(3)), Initiators: []int{0}, Latency: trial.Constant(time.Millisecond),
		Faults: []trial.Fault{trial.CrashFault(trial.CurrentLeader, trial.When{Trigger: trial.LeaderElected})}, Events: &obs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Crashes) != 1 || res.Crashes[0].Pos != 1 || !res.Crashes[0].WasLeader {
		t.Fatalf("leader-elected crashed %+v", res.Crashes)
	}
	if strings.Join(obs.log, "|") != "decide 0s|crash 0s 1" {
		t.Fatalf("observer saw %q", obs.log)
	}
}

// heartbeat(P,τ): a crashed peer is suspected by everyone once silent for
// longer than τ; live peers answering within τ never are; the run then
// comes to rest although pings would go on for ever.
func TestHeartbeatDetector(t *testing.T) {
	d := trial.Detector{Kind: "heartbeat", P: time.Millisecond, Tau: 3 * time.Millisecond}
	res, log := runLog(t, trial.Config{Initiators: []int{0}, Detector: d, Faults: []trial.Fault{trial.CrashFault(3, trial.When{Trigger: trial.AtTime, At: 5 * time.Millisecond})}})
	if strings.Count(log, ">4@") != 3 || strings.Count(log, ">") != 3 {
		t.Fatalf("suspicions: %q", log)
	}
	// Last ack from 4 arrived at 5ms (ping sent at 3ms); the tick at 9ms is
	// the first to see more than 3ms of silence.
	if res.Crashes[0].FirstSuspicion != 9*time.Millisecond {
		t.Fatalf("first suspicion at %v", res.Crashes[0].FirstSuspicion)
	}
	if !res.Quiescent || res.MessagesByKind()["PING"] == 0 || res.Messages != 3 {
		t.Fatalf("quiescent %v pings %v messages %d", res.Quiescent, res.MessagesByKind(), res.Messages)
	}
	// A τ shorter than the round trip suspects live processes: the detector
	// is only as good as its timeout.
	_, log = runLog(t, trial.Config{Initiators: []int{0}, Detector: trial.Detector{Kind: "heartbeat", P: time.Millisecond, Tau: time.Millisecond / 2}})
	if !strings.Contains(log, "1>2@") {
		t.Fatalf("a too-short τ suspected nobody: %q", log)
	}
}

func TestInaccurateDetector(t *testing.T) {
	// μ = 1: every crash is missed.
	res, log := runLog(t, trial.Config{Initiators: []int{0}, Faults: []trial.Fault{trial.CrashFault(3, trial.When{})}, Detector: trial.Detector{Kind: "inaccurate", Mu: 1, D: time.Millisecond}})
	if strings.Contains(log, ">") || res.Crashes[0].FirstSuspicion != -1 {
		t.Fatalf("μ=1 still suspected: %q", log)
	}
	// λ > 0: live processes are falsely suspected, the same ones for the
	// same seed.
	cfg := trial.Config{Ranks: nodes.RanksOf(ranks(6)), Initiators: []int{0}, Seed: 3, Detector: trial.Detector{Kind: "inaccurate", Lambda: 200, D: time.Millisecond, Window: 50 * time.Millisecond}}
	_, a := runLog(t, cfg)
	_, b := runLog(t, cfg)
	if !strings.Contains(a, ">") || a != b {
		t.Fatalf("false suspicions: %q vs %q", a, b)
	}
}

func TestParseDetector(t *testing.T) {
	T := time.Millisecond
	for spec, want := range map[string]string{
		"perfect()":                  "perfect(10ms)",
		"perfect(2T)":                "perfect(2ms)",
		"heartbeat(1ms, 5T)":         "heartbeat(1ms,5ms)",
		"inaccurate(10,0.1)":         "inaccurate(10,0.1,10ms,50ms)",
		"inaccurate(0.5, 0, 3T, 1s)": "inaccurate(0.5,0,3ms,1s)",
	} {
		d, err := trial.ParseDetector(spec, trial.Constant(T))
		if err != nil || d.String() != want {
			t.Errorf("ParseDetector(%q) = %v, %v; want %s", spec, d, err, want)
		}
	}
	for spec, want := range map[string]string{
		"oracle(1ms)": "unknown detector", "perfect": "want perfect", "perfect(0s)": "must be positive",
		"heartbeat(1ms)": "period P and a timeout", "inaccurate(1,2)": "μ", "inaccurate(x,0)": "λ", "perfect(1ms,2ms)": "one duration",
	} {
		if _, err := trial.ParseDetector(spec, trial.Constant(T)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDetector(%q) error %v; want %q", spec, err, want)
		}
	}
}
