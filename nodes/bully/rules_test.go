package bully

import (
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/nodetest"
)

// Each test below hands one process one event and checks exactly what it
// sent, armed and decided, rule by rule. Comments cite ALGORITHMS.md by line.

func election() nodes.Message      { return nodes.Message{Kind: kindElection} }
func ok() nodes.Message            { return nodes.Message{Kind: kindOK} }
func coord(l uint64) nodes.Message { return coordinator(nodes.RankOf(l)) }
func halt(w uint64) nodes.Message  { return nodes.Message{Kind: kindHalt, Rank: nodes.RankOf(w)} }
func ack(r uint64) nodes.Message   { return nodes.Message{Kind: kindAck, Rank: nodes.RankOf(r)} }
func candidate(j uint64) nodes.Message {
	return nodes.Message{Kind: kindElection, Rank: nodes.RankOf(j)}
}
func agree() nodes.Message    { return nodes.Message{Kind: kindAgree} }
func disagree() nodes.Message { return nodes.Message{Kind: kindDisagree} }

func send(from, to int, m nodes.Message) envelope { return envelope{From: from, To: to, Msg: m} }

// Five processes, ids 10..50 at positions 0..4; the one under test is
// position 2 (id 30), with two processes below and two above.
const me = 2

func five(t *testing.T, spec string) *nodetest.Net { return newNet(t, spec, nil, 10, 20, 30, 40, 50) }

func TestStartIsSilent(t *testing.T) {
	for _, spec := range []string{"bully", "bully/two-phase", "multicast", "multicast/no-agree"} {
		t.Run(spec, func(t *testing.T) {
			n := five(t, spec)
			n.ExpectSent()
			for p := range 5 {
				n.ExpectDecided(p) // nobody decides before the protocol says so
			}
		})
	}
}

// ALGORITHMS.md, "bully" (classic).
func TestBullyRules(t *testing.T) {
	n := five(t, "bully")
	n.Initiate(me) // lines 115-118: ask every higher process, arm T1
	n.ExpectSent(send(me, 3, election()), send(me, 4, election()))
	n.ExpectArmed(me, timerT1, 2*T)
	n.Initiate(me) // unless one is already running
	n.ExpectSent()
	n.Receive(me, 0, election()) // reply OK; already running
	n.ExpectSent(send(me, 0, ok()))
	n.Receive(me, 3, ok()) // cancel T1, arm T2
	n.ExpectSent()
	n.ExpectArmed(me, timerT1, nodetest.NotArmed)
	n.ExpectArmed(me, timerT2, 5*T)
	n.Receive(me, 4, ok()) // a second OK changes nothing
	n.ExpectArmed(me, timerT2, 5*T)
	n.Fire(me, timerT2) // lines 120-121: no COORDINATOR → a new election
	n.ExpectSent(send(me, 3, election()), send(me, 4, election()))
	n.ExpectArmed(me, timerT1, 2*T)
	n.Fire(me, timerT1) // lines 119-120: no OK → leader, COORDINATOR to every lower
	n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)))
	n.ExpectDecided(me, 30)
	n.Receive(me, 4, coord(50)) // record l
	n.ExpectDecided(me, 30, 50)
	n.Receive(me, 4, ok()) // a late OK after the election ended is ignored
	n.ExpectSent()
	n.ExpectArmed(me, timerT2, nodetest.NotArmed)
}

func TestBullyCoordinatorEndsElection(t *testing.T) {
	n := five(t, "bully")
	n.Initiate(me)
	n.Take()
	n.Receive(me, 3, coord(40)) // record l; cancel T1/T2
	n.ExpectArmed(me, timerT1, nodetest.NotArmed)
	n.ExpectDecided(me, 40)
	// Settling: an ELECTION less than T1 after the COORDINATOR may predate
	// its sender's copy of the announcement, which ends its election too:
	// answer it, start nothing.
	n.Receive(me, 0, election())
	n.ExpectSent(send(me, 0, ok()))
	n.ExpectArmed(me, timerT1, nodetest.NotArmed)
	n.Jump(n.Now() + 2*T - 1)
	n.Receive(me, 1, election())
	n.ExpectSent(send(me, 1, ok()))
	// T1 after it, no election runs: answer and start one.
	n.Jump(n.Now() + 1)
	n.Receive(me, 0, election())
	n.ExpectSent(send(me, 0, ok()), send(me, 3, election()), send(me, 4, election()))
}

// The coordinator itself never settles: it announces again on every
// ELECTION, however soon after its announcement (the rule the textbook
// figures count: COORDINATOR = (N−1)a).
func TestBullyCoordinatorAnswersEveryElection(t *testing.T) {
	n := five(t, "bully")
	n.Receive(4, 0, election())
	n.ExpectSent(send(4, 0, ok()), send(4, 0, coord(50)), send(4, 1, coord(50)), send(4, 2, coord(50)), send(4, 3, coord(50)))
	n.Receive(4, 1, election())
	n.ExpectSent(send(4, 1, ok()), send(4, 0, coord(50)), send(4, 1, coord(50)), send(4, 2, coord(50)), send(4, 3, coord(50)))
}

func TestBullyIdleProcessJoins(t *testing.T) {
	n := five(t, "bully")
	n.Receive(me, 1, election()) // reply OK; start an election
	n.ExpectSent(send(me, 1, ok()), send(me, 3, election()), send(me, 4, election()))
	n.ExpectArmed(me, timerT1, 2*T)
}

func TestBullyHighestAnnouncesOnEveryElection(t *testing.T) {
	n := five(t, "bully")
	top := 4
	for range 2 { // as written: each ELECTION starts an election it wins at once
		n.Receive(top, 1, election())
		n.ExpectSent(send(top, 1, ok()), send(top, 0, coord(50)), send(top, 1, coord(50)),
			send(top, 2, coord(50)), send(top, 3, coord(50)))
	}
	n.ExpectDecided(top, 50, 50)
	n.ExpectArmed(top, timerT1, nodetest.NotArmed)
}

// The workload and the detector asking at one instant make one election
// (the initiator of a crash-at-start run suspects the crash at time 0, then
// is told to initiate); a later request is a new one.
func TestBullyInitiateAtTheInstantOfASuspicion(t *testing.T) {
	n := five(t, "bully")
	n.Suspect(3, 4) // the coordinator: 40 has nobody alive above and wins at once
	n.ExpectSent(send(3, 0, coord(40)), send(3, 1, coord(40)), send(3, 2, coord(40)))
	n.Initiate(3)
	n.ExpectSent()
	n.Jump(T)
	n.Initiate(3)
	n.ExpectSent(send(3, 0, coord(40)), send(3, 1, coord(40)), send(3, 2, coord(40)))
	n.ExpectDecided(3, 40, 40)
}

// ALGORITHMS.md, "bully" (start on suspicion; suspected higher
// processes are still asked, but do not count as alive).
func TestBullySuspicions(t *testing.T) {
	t.Run("another process is no reason", func(t *testing.T) {
		n := five(t, "bully")
		n.Suspect(me, 3)
		n.Suspect(me, 0)
		n.ExpectSent()
	})
	t.Run("the coordinator starts an election", func(t *testing.T) {
		n := five(t, "bully")
		n.Suspect(me, 4)
		n.ExpectSent(send(me, 3, election()), send(me, 4, election()))
		n.Suspect(me, 4) // repeated: nothing new
		n.ExpectSent()
	})
	t.Run("every higher suspected: win at once", func(t *testing.T) {
		n := five(t, "bully")
		n.Suspect(me, 3)
		n.Suspect(me, 4)
		n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)))
		n.ExpectDecided(me, 30)
		n.ExpectArmed(me, timerT1, nodetest.NotArmed)
	})
	t.Run("suspecting during an election waits for T1", func(t *testing.T) {
		n := five(t, "bully")
		n.Initiate(me)
		n.Take()
		n.Suspect(me, 3)
		n.Suspect(me, 4)
		n.ExpectSent()
		n.ExpectArmed(me, timerT1, 2*T)
	})
	t.Run("self and strangers are ignored", func(t *testing.T) {
		n := five(t, "bully")
		n.Suspect(me, me)
		n.Suspect(me, 99)
		n.ExpectSent()
		n.Receive(me, 1, election())
		n.ExpectSent(send(me, 1, ok()), send(me, 3, election()), send(me, 4, election()))
	})
	t.Run("the new coordinator is the one watched", func(t *testing.T) {
		n := five(t, "bully")
		n.Receive(me, 3, coord(40))
		n.Suspect(me, 4) // 50 is not the coordinator any more
		n.ExpectSent()
		n.Suspect(me, 3) // and with both above suspected, this process wins at once
		n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)))
	})
}

// ALGORITHMS.md, "bully with announce: two-phase", the winner's side.
func TestTwoPhaseWinner(t *testing.T) {
	phase := func(n *nodetest.Net, p int) string { return n.Machine(p).(nodes.Phased).Phase() }
	t.Run("halts, collects ACKs, announces", func(t *testing.T) {
		n := five(t, "bully/two-phase")
		if got := phase(n, me); got != nodes.PhaseNormal {
			t.Fatalf("phase at start %q, want Normal", got)
		}
		n.Initiate(me)
		n.Take()
		if got := phase(n, me); got != "Election" {
			t.Fatalf("phase electing %q, want Election", got)
		}
		n.Fire(me, timerT1) // the winner first sends HALT to every lower process
		n.ExpectSent(send(me, 0, halt(30)), send(me, 1, halt(30)))
		n.ExpectArmed(me, timerAckWait, 2*T)
		n.ExpectDecided(me)
		if got := phase(n, me); got != "Election" {
			t.Fatalf("phase halting %q, want Election", got)
		}
		n.Receive(me, 1, ack(20))
		n.Receive(me, 1, ack(20)) // a duplicate counts once
		n.Receive(me, 3, ack(40)) // not a lower process
		n.Receive(me, 0, ack(20)) // lies about its sender
		n.ExpectSent()
		n.Receive(me, 0, election()) // answered, but the winner is still in its election
		n.ExpectSent(send(me, 0, ok()))
		n.Receive(me, 0, ack(10)) // every live lower process has answered
		n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)))
		n.ExpectDecided(me, 30)
		n.ExpectArmed(me, timerAckWait, nodetest.NotArmed)
		if got := phase(n, me); got != nodes.PhaseNormal {
			t.Fatalf("phase after announcing %q, want Normal", got)
		}
	})
	t.Run("ack-wait expires", func(t *testing.T) {
		n := five(t, "bully/two-phase")
		n.Initiate(me)
		n.Fire(me, timerT1)
		n.Receive(me, 0, ack(10))
		n.Take()
		n.Fire(me, timerAckWait) // "(or a timeout passes)"
		n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)))
		n.ExpectDecided(me, 30)
	})
	t.Run("suspected lower processes are not waited for", func(t *testing.T) {
		n := five(t, "bully/two-phase")
		n.Suspect(me, 0) // before: HALT is sent but no ACK expected
		n.Initiate(me)
		n.Fire(me, timerT1)
		n.ExpectSent(send(me, 3, election()), send(me, 4, election()), send(me, 0, halt(30)), send(me, 1, halt(30)))
		n.Receive(me, 0, ack(10)) // an ACK from a suspected process is not counted
		n.ExpectSent()
		n.Suspect(me, 1) // during: the last one awaited is gone
		n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)))
		n.ExpectDecided(me, 30)
	})
	t.Run("no live lower process: announce at once", func(t *testing.T) {
		n := five(t, "bully/two-phase")
		n.Suspect(me, 0)
		n.Suspect(me, 1)
		n.Suspect(me, 3)
		n.Suspect(me, 4) // the coordinator: elect, and win at once
		n.ExpectSent(send(me, 0, halt(30)), send(me, 1, halt(30)), send(me, 0, coord(30)), send(me, 1, coord(30)))
		n.ExpectArmed(me, timerAckWait, nodetest.NotArmed)
	})
	t.Run("the lowest announces to nobody", func(t *testing.T) {
		n := newNet(t, "bully/two-phase", nil, 10, 20)
		n.Suspect(0, 1)
		n.ExpectSent()
		n.ExpectDecided(0, 10)
	})
}

// ALGORITHMS.md, "bully with announce: two-phase", the halted side.
func TestTwoPhaseHalted(t *testing.T) {
	phase := func(n *nodetest.Net) string { return n.Machine(me).(nodes.Phased).Phase() }
	n := five(t, "bully/two-phase")
	n.Initiate(me)
	n.Receive(me, 3, ok())
	n.Take()
	n.Receive(me, 4, halt(50)) // "each moves to Waiting and answers ACK"
	n.ExpectSent(send(me, 4, ack(30)))
	if got := phase(n); got != "Waiting" {
		t.Fatalf("phase %q, want Waiting", got)
	}
	n.ExpectArmed(me, timerT2, 5*T) // T2 guards the wait
	n.Receive(me, 1, election())    // still in the election: answer only
	n.ExpectSent(send(me, 1, ok()))
	n.Receive(me, 3, halt(40)) // a later winner halts it again
	n.ExpectSent(send(me, 3, ack(30)))
	n.Receive(me, 4, coord(50)) // not from the process that halted it: ignored
	n.ExpectDecided(me)
	if got := phase(n); got != "Waiting" {
		t.Fatalf("phase %q, want Waiting", got)
	}
	n.Receive(me, 3, coord(40)) // "... sends COORDINATOR and all return to Normal"
	n.ExpectDecided(me, 40)
	if got := phase(n); got != nodes.PhaseNormal {
		t.Fatalf("phase %q, want Normal", got)
	}
	n.ExpectArmed(me, timerT2, nodetest.NotArmed)
	n.Receive(me, 3, coord(40)) // in Normal nobody halted it: ignored
	n.ExpectDecided(me, 40)
}

func TestTwoPhaseHaltedWinnerYields(t *testing.T) {
	n := five(t, "bully/two-phase")
	n.Initiate(me)
	n.Fire(me, timerT1)
	n.Take()
	n.Receive(me, 4, halt(50))
	n.ExpectSent(send(me, 4, ack(30)))
	n.ExpectArmed(me, timerAckWait, nodetest.NotArmed)
	n.Receive(me, 0, ack(10)) // its own round is over
	n.ExpectSent()
	n.ExpectDecided(me)
}

func TestTwoPhaseWaitingTimesOut(t *testing.T) {
	n := five(t, "bully/two-phase")
	n.Receive(me, 4, halt(50))
	n.Take()
	n.Fire(me, timerT2) // the winner fell silent: a new election
	n.ExpectSent(send(me, 3, election()), send(me, 4, election()))
}

// ALGORITHMS.md, "multicast" (multicast).
func TestMulticastRules(t *testing.T) {
	t.Run("candidate", func(t *testing.T) {
		n := five(t, "multicast")
		n.Initiate(me) // ELECTION(self) to every process, arm a timer
		n.ExpectSent(send(me, 0, candidate(30)), send(me, 1, candidate(30)), send(me, 3, candidate(30)), send(me, 4, candidate(30)))
		n.ExpectArmed(me, timerElection, 2*T)
		n.Initiate(me)
		n.ExpectSent()
		n.Receive(me, 0, agree())
		n.Receive(me, 1, agree())
		n.Receive(me, 3, disagree()) // give up
		n.ExpectArmed(me, timerElection, nodetest.NotArmed)
		n.Receive(me, 4, agree()) // after giving up, AGREE counts for nothing
		n.ExpectSent()
		n.ExpectDecided(me)
		n.Receive(me, 0, candidate(10)) // still in the election: disagree only
		n.ExpectSent(send(me, 0, disagree()))
		n.Receive(me, 4, coord(50)) // COORDINATOR: decide
		n.ExpectDecided(me, 50)
	})
	t.Run("AGREE from all", func(t *testing.T) {
		n := five(t, "multicast")
		n.Initiate(me)
		n.Take()
		for _, p := range []int{0, 1, 3, 4} {
			n.ExpectSent()
			n.Receive(me, p, agree())
		}
		n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)), send(me, 3, coord(30)), send(me, 4, coord(30)))
		n.ExpectDecided(me, 30)
		n.ExpectArmed(me, timerElection, nodetest.NotArmed)
	})
	t.Run("timer without DISAGREE", func(t *testing.T) {
		n := five(t, "multicast")
		n.Initiate(me)
		n.Take()
		n.Fire(me, timerElection)
		n.ExpectSent(send(me, 0, coord(30)), send(me, 1, coord(30)), send(me, 3, coord(30)), send(me, 4, coord(30)))
		n.ExpectDecided(me, 30)
	})
	t.Run("answers", func(t *testing.T) {
		n := five(t, "multicast")
		n.Receive(me, 4, candidate(50)) // j > self → AGREE
		n.ExpectSent(send(me, 4, agree()))
		n.Receive(me, 0, candidate(10)) // lines 143-144: j < self → DISAGREE, start
		n.ExpectSent(send(me, 0, disagree()), send(me, 0, candidate(30)), send(me, 1, candidate(30)), send(me, 3, candidate(30)), send(me, 4, candidate(30)))
		n.Receive(me, 1, candidate(20)) // unless one runs
		n.ExpectSent(send(me, 1, disagree()))
	})
	t.Run("no-agree", func(t *testing.T) {
		n := five(t, "multicast/no-agree")
		n.Receive(me, 4, candidate(50)) // no AGREE messages
		n.ExpectSent()
		n.Receive(me, 0, candidate(10))
		n.ExpectSent(send(me, 0, disagree()), send(me, 0, candidate(30)), send(me, 1, candidate(30)), send(me, 3, candidate(30)), send(me, 4, candidate(30)))
		n.Fire(me, timerElection) // elected when the timer expires without a DISAGREE
		n.Take()
		n.ExpectDecided(me, 30)
	})
	t.Run("suspecting the coordinator", func(t *testing.T) {
		n := five(t, "multicast")
		n.Suspect(me, 3)
		n.ExpectSent()
		n.Suspect(me, 4)
		n.ExpectSent(send(me, 0, candidate(30)), send(me, 1, candidate(30)), send(me, 3, candidate(30)), send(me, 4, candidate(30)))
	})
}

func TestParams(t *testing.T) {
	alg := func(name string) *nodes.Algorithm {
		a, _, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, tc := range []struct {
		alg, variant string
		params       nodes.Params
		err          string
	}{
		{"bully", "", nil, ""},
		{"bully", "classic", nil, ""},
		{"bully", "two-phase", nodes.Params{"t1": "1T", "t2": "10ms", "ack-wait": "0.5T"}, ""},
		{"bully", "classic", nodes.Params{"t1": "0"}, "parameter t1: must be positive, got 0s"},
		{"bully", "classic", nodes.Params{"t1": "0T"}, "parameter t1: must be positive, got 0s"},
		{"bully", "classic", nodes.Params{"t2": "-1ms"}, "parameter t2: must be positive, got -1ms"},
		{"bully", "two-phase", nodes.Params{"ack-wait": "0s"}, "parameter ack-wait: must be positive, got 0s"},
		{"bully", "classic", nodes.Params{"t1": "soon"}, `parameter t1: "soon" is not a duration (5ms) or a multiple of T or D (2T, 2D)`},
		{"bully", "classic", nodes.Params{"timeout": "2T"}, `algorithm bully has no parameter "timeout" (known: t1, t2, ack-wait, settle)`},
		{"bully", "classic", nodes.Params{"settle": "0"}, ""},
		{"bully", "classic", nodes.Params{"settle": "-1T"}, "parameter settle: must not be negative, got -1ms"},
		{"bully", "three-phase", nil, `algorithm bully has no variant "three-phase" (known: classic, two-phase)`},
		{"multicast", "", nil, ""},
		{"multicast", "no-agree", nodes.Params{"timeout": "3ms"}, ""},
		{"multicast", "agree", nodes.Params{"timeout": "0T"}, "parameter timeout: must be positive, got 0s"},
		{"multicast", "agree", nodes.Params{"t1": "2T"}, `algorithm multicast has no parameter "t1" (known: timeout)`},
		{"multicast", "disagree", nil, `algorithm multicast has no variant "disagree" (known: agree, no-agree)`},
	} {
		_, err := alg(tc.alg).New(nodes.Config{Variant: tc.variant, Params: tc.params, N: 3, T: T})
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s/%s %v: %v", tc.alg, tc.variant, tc.params, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s/%s %v: error %v, want %q", tc.alg, tc.variant, tc.params, err, tc.err)
		}
	}
}

func TestRegistration(t *testing.T) {
	for _, tc := range []struct {
		name     string
		variants []string
		params   []string
	}{
		{"bully", []string{"classic", "two-phase"}, []string{"t1", "t2", "ack-wait"}},
		{"multicast", []string{"agree", "no-agree"}, []string{"timeout"}},
	} {
		a, v, err := nodes.Lookup(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if a.Topology != nodes.Complete || a.Family != "bully" || v != tc.variants[0] || a.Theory == nil || a.StartsAll {
			t.Errorf("%s: topology %v, family %q, default variant %q", tc.name, a.Topology, a.Family, v)
		}
		for i, want := range tc.variants {
			if a.Variants[i].Name != want {
				t.Errorf("%s: variant %d is %q, want %q", tc.name, i, a.Variants[i].Name, want)
			}
		}
		for i, want := range tc.params {
			if a.Params[i].Name != want {
				t.Errorf("%s: parameter %d is %q, want %q", tc.name, i, a.Params[i].Name, want)
			}
		}
	}
	// Only two-phase has phases the checker verifies.
	for spec, want := range map[string]bool{"bully": false, "bully/two-phase": true, "multicast": false} {
		n := newNet(t, spec, nil, 1, 2)
		if _, ok := n.Machine(0).(nodes.Phased); ok != want {
			t.Errorf("%s implements nodes.Phased: %v, want %v", spec, ok, want)
		}
	}
}
