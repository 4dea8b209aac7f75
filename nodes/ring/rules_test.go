package ring

import (
	"fmt"
	"slices"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// Each test below hands one process one event and checks exactly what it
// sent and decided, rule by rule. Comments cite ALGORITHMS.md by line.

func msg(k nodes.Kind, r uint64) nodes.Message { return nodes.Message{Kind: k, Rank: nodes.RankOf(r)} }

func withAux(m nodes.Message, aux uint64) nodes.Message {
	m.Aux = nodes.RankOf(aux)
	return m
}

func probe(j uint64, k, d int64) nodes.Message {
	return nodes.Message{Kind: kindProbe, Rank: nodes.RankOf(j), A: k, B: d}
}

func reply(j uint64, k int64) nodes.Message {
	return nodes.Message{Kind: kindReply, Rank: nodes.RankOf(j), A: k}
}

func send(to int, m nodes.Message) envelope { return envelope{To: to, Msg: m} }

// expect checks what process p sent since the last take (destinations and
// messages, in order).
func (n *net) expect(p int, want ...envelope) {
	n.t.Helper()
	n.pure()
	got := n.Take()
	for i := range got {
		if got[i].From != p {
			n.t.Fatalf("message %d came from process %d, want %d", i, got[i].From, p)
		}
		got[i].From = 0
	}
	if !slices.Equal(got, want) {
		n.t.Fatalf("process %d sent %s, want %s", p, show(got), show(want))
	}
}

func show(es []envelope) string {
	s := "["
	for i, e := range es {
		if i > 0 {
			s += " "
		}
		m := e.Msg
		s += fmt.Sprintf("%s(%v", m.Kind, m.Rank)
		if !m.Aux.IsZero() {
			s += fmt.Sprintf(" aux=%v", m.Aux)
		}
		if m.Kind == kindProbe || m.Kind == kindReply {
			if r := m.A >> phaseBits; r != 0 {
				s += fmt.Sprintf(" run=%d", r)
			}
			s += fmt.Sprintf(" k=%d d=%d", m.A&phaseMask, m.B)
		} else if m.A != 0 {
			s += fmt.Sprintf(" run=%d", m.A)
		}
		s += fmt.Sprintf(")→%d", e.To)
	}
	return s + "]"
}

// The process under test is position 1 (id 50) of a ring 10 → 50 → 30.
const me, pred, succ = 1, 0, 2

func trio(t *testing.T, name string) *net {
	n := newNet(t, name, ranks(10, 50, 30))
	n.Take() // lcr and hs send at start; the rule tests look at what follows
	return n
}

// ALGORITHMS.md, "ring".
func TestRingRules(t *testing.T) {
	n := trio(t, "ring")
	n.Initiate(me) // "ring": Initiate: send ELECTION(self)
	n.expect(me, send(succ, msg(kindElection, 50)))
	n.Receive(me, pred, msg(kindElection, 70)) // "ring": r > self → forward
	n.expect(me, send(succ, msg(kindElection, 70)))
	n.Receive(me, pred, msg(kindElection, 20)) // lines 45-46: r < self → ELECTION(self)
	n.expect(me, send(succ, msg(kindElection, 50)))
	n.Receive(me, pred, msg(kindElection, 20)) // "ring": always — no participation flag
	n.expect(me, send(succ, msg(kindElection, 50)))
	n.ExpectDecided(me)
	n.Receive(me, pred, msg(kindElection, 50)) // lines 46-47: r = self → leader, ELECTED(self)
	n.expect(me, send(succ, msg(kindElected, 50)))
	n.ExpectDecided(me, 50)
	n.Receive(me, pred, msg(kindElected, 50)) // "ring": l = self → stop
	n.expect(me)
	n.ExpectDecided(me, 50)
	n.Receive(me, pred, msg(kindElected, 70)) // "ring": record l, forward
	n.expect(me, send(succ, msg(kindElected, 70)))
	n.ExpectDecided(me, 50, 70)
}

// ALGORITHMS.md, "chang-roberts" (chang-roberts).
func TestChangRobertsRules(t *testing.T) {
	t.Run("initiator swallows lower", func(t *testing.T) {
		n := trio(t, "chang-roberts")
		n.Initiate(me) // participating ← true; send ELECTION(self)
		n.expect(me, send(succ, msg(kindElection, 50)))
		n.Receive(me, pred, msg(kindElection, 20)) // participating → swallow
		n.expect(me)
	})
	t.Run("first lower is replaced, second swallowed", func(t *testing.T) {
		n := trio(t, "chang-roberts")
		n.Receive(me, pred, msg(kindElection, 20)) // lines 58-59: not participating → ELECTION(self)
		n.expect(me, send(succ, msg(kindElection, 50)))
		n.Receive(me, pred, msg(kindElection, 40)) // now participating → swallow
		n.expect(me)
	})
	t.Run("forwarding sets the flag", func(t *testing.T) {
		n := trio(t, "chang-roberts")
		n.Receive(me, pred, msg(kindElection, 70)) // r > self → participating, forward
		n.expect(me, send(succ, msg(kindElection, 70)))
		n.Receive(me, pred, msg(kindElection, 20))
		n.expect(me)
	})
	t.Run("ELECTED clears the flag", func(t *testing.T) {
		n := trio(t, "chang-roberts")
		n.Initiate(me)
		n.Take()
		n.Receive(me, pred, msg(kindElected, 70)) // participating ← false; record; forward
		n.expect(me, send(succ, msg(kindElected, 70)))
		n.ExpectDecided(me, 70)
		n.Receive(me, pred, msg(kindElection, 20)) // so a lower ELECTION is replaced again
		n.expect(me, send(succ, msg(kindElection, 50)))
	})
	t.Run("leader", func(t *testing.T) {
		n := trio(t, "chang-roberts")
		n.Initiate(me)
		n.Take()
		n.Receive(me, pred, msg(kindElection, 50)) // r = self → ELECTED(self)
		n.expect(me, send(succ, msg(kindElected, 50)))
		n.ExpectDecided(me, 50)
		n.Receive(me, pred, msg(kindElected, 50)) // forward unless l = self
		n.expect(me)
		n.ExpectDecided(me, 50)
	})
}

// ALGORITHMS.md, "ring-initiator" (ring-initiator), with the participation reset the
// lead specified for a higher initiator's run.
func TestRingInitiatorRules(t *testing.T) {
	t.Run("messages carry the initiator", func(t *testing.T) {
		n := trio(t, "ring-initiator")
		n.Initiate(me)
		n.expect(me, send(succ, withAux(msg(kindElection, 50), 50)))
		n.Receive(me, pred, withAux(msg(kindElection, 70), 50)) // equal initiator: chang-roberts rules
		n.expect(me, send(succ, withAux(msg(kindElection, 70), 50)))
		n.Receive(me, pred, withAux(msg(kindElection, 20), 50)) // participating: swallow
		n.expect(me)
		n.Receive(me, pred, withAux(msg(kindElected, 70), 50))
		n.expect(me, send(succ, withAux(msg(kindElected, 70), 50)))
		n.ExpectDecided(me, 70)
	})
	t.Run("lower initiator discarded", func(t *testing.T) {
		n := trio(t, "ring-initiator")
		n.Receive(me, pred, withAux(msg(kindElection, 20), 40)) // initiator 40 remembered
		n.expect(me, send(succ, withAux(msg(kindElection, 50), 40)))
		n.Receive(me, pred, withAux(msg(kindElection, 70), 30)) // lines 69-70: lower initiator → discarded
		n.expect(me)
		n.Receive(me, pred, withAux(msg(kindElected, 70), 30)) // either kind
		n.expect(me)
		n.ExpectDecided(me)
	})
	t.Run("own initiation counts as seen", func(t *testing.T) {
		n := trio(t, "ring-initiator")
		n.Initiate(me)
		n.Take()
		n.Receive(me, pred, withAux(msg(kindElection, 70), 40)) // 40 < self as initiator
		n.expect(me)
	})
	t.Run("higher initiator starts a new run here", func(t *testing.T) {
		n := trio(t, "ring-initiator")
		n.Receive(me, pred, withAux(msg(kindElection, 20), 40)) // joins 40's run: participating
		n.expect(me, send(succ, withAux(msg(kindElection, 50), 40)))
		// lines 70-71: initiator 60 replaces 40 and the message is processed
		// by the chang-roberts rules — as a new run, so the flag of 40's run
		// does not swallow it.
		n.Receive(me, pred, withAux(msg(kindElection, 20), 60))
		n.expect(me, send(succ, withAux(msg(kindElection, 50), 60)))
		n.Receive(me, pred, withAux(msg(kindElection, 30), 60)) // same run: now swallowed
		n.expect(me)
		n.Receive(me, pred, withAux(msg(kindElection, 20), 40)) // 40 is lower now
		n.expect(me)
	})
	t.Run("higher ELECTED is recorded", func(t *testing.T) {
		n := trio(t, "ring-initiator")
		n.Initiate(me)
		n.Take()
		n.Receive(me, pred, withAux(msg(kindElected, 70), 60))
		n.expect(me, send(succ, withAux(msg(kindElected, 70), 60)))
		n.ExpectDecided(me, 70)
	})
	t.Run("no initiation under a higher run", func(t *testing.T) {
		n := trio(t, "ring-initiator")
		n.Receive(me, pred, withAux(msg(kindElection, 70), 60))
		n.Take()
		n.Initiate(me) // its run would be discarded downstream: not started
		n.expect(me)
	})
	t.Run("leader", func(t *testing.T) {
		n := trio(t, "ring-initiator")
		n.Initiate(me)
		n.Take()
		n.Receive(me, pred, withAux(msg(kindElection, 50), 50))
		n.expect(me, send(succ, withAux(msg(kindElected, 50), 50)))
		n.ExpectDecided(me, 50)
		n.Receive(me, pred, withAux(msg(kindElected, 50), 50))
		n.expect(me)
	})
}

// ALGORITHMS.md, "lcr" (lcr).
func TestLCRRules(t *testing.T) {
	n := newNet(t, "lcr", ranks(10, 50, 30))
	// every process sends its own id at start.
	got := n.Take()
	want := []envelope{{From: 0, To: 1, Msg: msg(kindElection, 10)}, {From: 1, To: 2, Msg: msg(kindElection, 50)}, {From: 2, To: 0, Msg: msg(kindElection, 30)}}
	if !slices.Equal(got, want) {
		t.Fatalf("start sent %s, want %s", show(got), show(want))
	}
	n.Initiate(me) // StartsAll: Initiate adds nothing
	n.expect(me)
	n.Receive(me, pred, msg(kindElection, 70)) // j > self → forward
	n.expect(me, send(succ, msg(kindElection, 70)))
	n.Receive(me, pred, msg(kindElection, 20)) // j < self → swallow
	n.expect(me)
	n.Receive(me, pred, msg(kindElection, 50)) // lines 77-78: j = self → leader, ELECTED(self)
	n.expect(me, send(succ, msg(kindElected, 50)))
	n.ExpectDecided(me, 50)
	n.Receive(me, pred, msg(kindElected, 50))
	n.expect(me)
	n.Receive(me, pred, msg(kindElected, 70))
	n.expect(me, send(succ, msg(kindElected, 70)))
	n.ExpectDecided(me, 50, 70)
}

// ALGORITHMS.md, "hs" (hs). Process 1 (id 50) has successor 2 and
// predecessor 0.
func TestHSRules(t *testing.T) {
	t.Run("start", func(t *testing.T) {
		n := newNet(t, "hs", ranks(10, 50, 30))
		got := n.Take()
		// PROBE(self, 0, 1) to both neighbours, successor first.
		if len(got) != 6 || got[2] != (envelope{From: 1, To: 2, Msg: probe(50, 0, 1)}) || got[3] != (envelope{From: 1, To: 0, Msg: probe(50, 0, 1)}) {
			t.Fatalf("start sent %s", show(got))
		}
		n.Initiate(me)
		n.expect(me)
	})
	t.Run("probes pass on, turn back, or die", func(t *testing.T) {
		n := trio(t, "hs")
		n.Receive(me, pred, probe(70, 2, 1)) // j > self, d < 2^k → on, d+1
		n.expect(me, send(succ, probe(70, 2, 2)))
		n.Receive(me, succ, probe(70, 2, 3)) // from the other side: on the other way
		n.expect(me, send(pred, probe(70, 2, 4)))
		n.Receive(me, succ, probe(70, 2, 4)) // lines 88-89: d ≥ 2^k → REPLY back
		n.expect(me, send(succ, reply(70, 2)))
		n.Receive(me, pred, probe(70, 0, 1)) // phase 0 reaches one hop
		n.expect(me, send(pred, reply(70, 0)))
		n.Receive(me, pred, probe(20, 3, 1)) // j < self → swallow
		n.expect(me)
	})
	t.Run("replies pass on toward j", func(t *testing.T) {
		n := trio(t, "hs")
		n.Receive(me, succ, reply(70, 1)) // j ≠ self → pass on
		n.expect(me, send(pred, reply(70, 1)))
		n.Receive(me, pred, reply(70, 1))
		n.expect(me, send(succ, reply(70, 1)))
	})
	t.Run("phase advances after both replies", func(t *testing.T) {
		n := trio(t, "hs")
		n.Receive(me, succ, reply(50, 0)) // one side only: wait
		n.expect(me)
		n.Receive(me, pred, reply(50, 0)) // lines 90-91: both → PROBE(self, k+1, 1) both ways
		n.expect(me, send(succ, probe(50, 1, 1)), send(pred, probe(50, 1, 1)))
		n.Receive(me, pred, reply(50, 0)) // a stale phase: ignored
		n.expect(me)
		n.Receive(me, pred, reply(50, 1))
		n.Receive(me, succ, reply(50, 1))
		n.expect(me, send(succ, probe(50, 2, 1)), send(pred, probe(50, 2, 1)))
	})
	t.Run("own probe back: leader once", func(t *testing.T) {
		n := trio(t, "hs")
		n.Receive(me, pred, probe(50, 2, 3)) // j = self → leader
		n.expect(me, send(succ, msg(kindElected, 50)))
		n.ExpectDecided(me, 50)
		n.Receive(me, succ, probe(50, 2, 3)) // the later copy is ignored
		n.expect(me)
		n.Receive(me, pred, msg(kindElected, 50))
		n.expect(me)
		n.ExpectDecided(me, 50)
	})
	t.Run("ELECTED goes to the successor", func(t *testing.T) {
		n := trio(t, "hs")
		n.Receive(me, pred, msg(kindElected, 70))
		n.expect(me, send(succ, msg(kindElected, 70)))
		n.ExpectDecided(me, 70)
	})
}

// kindOther is some other family's message, which ring processes ignore.
var kindOther = nodes.RegisterKind("RING_TEST_OTHER", nodes.ElectionClass)

func TestUnknownKindIgnored(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"} {
		n := trio(t, name)
		n.Receive(me, pred, msg(kindOther, 70))
		n.expect(me)
		n.ExpectDecided(me)
	}
}

func TestConstructorRejectsVariantsAndParams(t *testing.T) {
	for _, name := range []string{"ring", "chang-roberts", "ring-initiator", "lcr", "hs"} {
		alg, _, err := nodes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := alg.New(nodes.Config{Variant: "default", N: 3}); err != nil {
			t.Errorf("%s default: %v", name, err)
		}
		if _, err := alg.New(nodes.Config{Variant: "fast", N: 3}); err == nil {
			t.Errorf("%s accepted variant fast", name)
		}
		if _, err := alg.New(nodes.Config{Params: nodes.Params{"b": "1", "a": "2"}, N: 3}); err == nil {
			t.Errorf("%s accepted parameters", name)
		} else if want := `algorithm ` + name + ` takes no parameters, got "a"`; err.Error() != want {
			t.Errorf("%s: %q, want %q", name, err, want)
		}
	}
}

func TestRegistration(t *testing.T) {
	for _, c := range []struct {
		name      string
		topo      nodes.Topology
		startsAll bool
	}{
		{"ring", nodes.RingUni, false},
		{"chang-roberts", nodes.RingUni, false},
		{"ring-initiator", nodes.RingUni, false},
		{"lcr", nodes.RingUni, true},
		{"hs", nodes.RingBi, true},
	} {
		alg, _, err := nodes.Lookup(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if alg.Topology != c.topo || alg.StartsAll != c.startsAll || alg.Family != "ring" || alg.Theory == nil || alg.Summary == "" {
			t.Errorf("%s registered as %+v", c.name, alg)
		}
	}
	for _, k := range []string{"ELECTION", "ELECTED", "PROBE", "REPLY"} {
		if kind, ok := nodes.KindByName(k); !ok || !kind.IsElection() {
			t.Errorf("kind %s not registered as an election message", k)
		}
	}
}
