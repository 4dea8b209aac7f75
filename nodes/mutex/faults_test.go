package mutex_test

import (
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/bully"
	"github.com/electbench/electbench/nodes/trial"
)

// The faults of ALGORITHMS.md, "Mutual exclusion", at N = 5 under the
// reference model with the default perfect detector (suspicion 10T after a
// crash). The live runtime must show the same outcomes
// (workloads/live_mutex_test.go).

// crashCoordinator: three processes ask twice each; the coordinator
// (the highest, position 4) crashes at 3T, as the first of them leaves.
func crashCoordinator(params nodes.Params) setup {
	return setup{spec: "central", params: params, ids: ascending(5), initiators: []int{0, 1, 2},
		crashes: []trial.Fault{trial.CrashFault(4, trial.When{Trigger: trial.AtTime, At: 3 * T})}}
}

// "a crashed coordinator (re-election)": without an election algorithm
// the queue dies with the coordinator and the waiting processes starve;
// with elect=bully the highest live process takes over, collects the
// processes' states for 2D and serves every request.
func TestCentralCoordinatorCrash(t *testing.T) {
	o := run(t, crashCoordinator(nodes.Params{"requests": "2"}))
	if o.v.Live || o.v.Violations != 0 || o.v.Recorded[len(o.v.Recorded)-1].Kind != "starved" {
		t.Fatalf("elect=highest: live %v, %v; want the waiting processes starved", o.v.Live, o.v.Recorded)
	}
	if len(o.v.Entries) != 1 {
		t.Errorf("elect=highest: %d entries, want only the one before the crash", len(o.v.Entries))
	}

	o = run(t, crashCoordinator(nodes.Params{"requests": "2", "elect": "bully"}))
	o.ok(t, 6)
	if o.v.Leader != nodes.RankOf(4).String() {
		t.Errorf("elect=bully: coordinator %q at the end, want process 3 (id 4)", o.v.Leader)
	}
	// Nobody enters again before the new coordinator has been elected
	// (suspicion at 13T, bully's 4T) and has collected states (2D).
	if e := o.v.Entries[1]; e.Entered < 13*T {
		t.Errorf("elect=bully: second entry %+v before the crash was even detected", e)
	}
	if o.sent("ELECTION", "OK", "COORDINATOR") == 0 {
		t.Errorf("elect=bully: no election messages: %v", o.rec.MessagesByKind())
	}
}

// "a crashed token holder (token lost)": process 0 holds the token from
// 1T to 6T, process 2 from 8T, and crashes at 10T; process 0, asking
// again from 8T, never sees the token after that.
func TestTokenRingHolderCrash(t *testing.T) {
	s := setup{spec: "token-ring", params: nodes.Params{"requests": "3", "think": "2T", "hold": "5T"},
		ids: ascending(5), initiators: []int{0, 2}, crashes: []trial.Fault{trial.CrashFault(2, trial.When{Trigger: trial.AtTime, At: 10 * T})}}
	o := run(t, s)
	if o.v.Live || o.v.Violations != 0 || o.v.Recorded[len(o.v.Recorded)-1].Kind != "starved" {
		t.Fatalf("live %v, %v; want process 0 starved", o.v.Live, o.v.Recorded)
	}
	// The token's last hop is the one into process 2 (8T): nothing moves
	// after the crash.
	if got := o.sent("TOKEN"); got != 3 {
		t.Errorf("%d TOKEN messages, want 3 (4→0, 0→1, 1→2)", got)
	}
	// A crash of a process not holding the token: the ring closes over it
	// once the detector suspects it, and everyone is served.
	s.crashes = []trial.Fault{trial.CrashFault(3, trial.When{Trigger: trial.AtTime, At: 2 * T})}
	s.initiators = []int{0, 1, 2, 4}
	o = run(t, s)
	o.ok(t, 12)
}

// "Detection and regeneration, in a variant": with token-ring/regenerate
// the process that passed the token to the crashed holder (1) asks the
// next live process (3) to regenerate it; 3 has not seen it pass, takes
// it up, and process 0 is served again. A crash of a process that had
// passed the token on regenerates nothing: one token, never two.
func TestTokenRingRegenerate(t *testing.T) {
	s := setup{spec: "token-ring/regenerate", params: nodes.Params{"requests": "3", "think": "2T", "hold": "5T"},
		ids: ascending(5), initiators: []int{0, 2}, crashes: []trial.Fault{trial.CrashFault(2, trial.When{Trigger: trial.AtTime, At: 10 * T})}, deadline: 200 * T}
	o := run(t, s)
	// 0 makes its 3 requests; 2 made one (from 8T) and crashed in it.
	if o.v.Violations != 0 || !o.v.Live || len(o.v.Entries) != 4 {
		t.Fatalf("live %v, %d violations, %d entries: %v", o.v.Live, o.v.Violations, len(o.v.Entries), o.v.Recorded)
	}
	if got := o.sent("REGENERATE"); got != 1 {
		t.Errorf("%d REGENERATE, want 1 (from 1 to 3)", got)
	}
	for _, at := range []time.Duration{3 * T, 9 * T, 40 * T} { // before, as and long after it reaches 2
		s.crashes = []trial.Fault{trial.CrashFault(2, trial.When{Trigger: trial.AtTime, At: at})}
		s.initiators = []int{0, 1, 3, 4}
		o = run(t, s)
		if o.v.Violations != 0 || !o.v.Live || len(o.v.Entries) != 12 {
			t.Errorf("crash of 2 at %v: live %v, %d violations, %d entries: %v", at, o.v.Live, o.v.Violations, len(o.v.Entries), o.v.Recorded)
		}
	}
}
