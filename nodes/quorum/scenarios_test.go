package quorum

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	_ "github.com/electbench/electbench/nodes/etcdraft" // etcd's Raft, judged beside the textbook ones
)

// Whole runs on the fake network: elections, crashes, partitions and pauses,
// judged by the network's own safety monitor. The simulator's versions (with
// the workloads checker) are in sim_test.go.

var algorithms = []string{"raft", "chubby", "zookeeper", "etcd-raft"}

// agreed checks that every live process believes the same leader, alive,
// and returns it.
func (n *net) agreed() (uint64, error) { return n.agreedAmong(-1) }

// agreedAmong is agreed, ignoring process skip.
func (n *net) agreedAmong(skip int) (uint64, error) {
	var l uint64
	for p := range n.Size() {
		if n.Crashed(p) || p == skip {
			continue
		}
		b := n.belief(p)
		switch {
		case b == 0:
			return 0, fmt.Errorf("process %d knows no leader", p)
		case l == 0:
			l = b
		case b != l:
			return 0, fmt.Errorf("processes believe %d and %d", l, b)
		}
	}
	for p := range n.Size() {
		if n.Rank(p) == rank(l) && (n.Crashed(p) || p == skip) {
			return 0, fmt.Errorf("everyone believes %d, which crashed", l)
		}
	}
	return l, nil
}

func jitter(r *rand.Rand) time.Duration { return T/2 + time.Duration(r.Int64N(int64(T))) }

func TestElectsWithoutFaults(t *testing.T) {
	for _, name := range algorithms {
		for _, size := range []int{2, 3, 5, 8} {
			t.Run(fmt.Sprintf("%s/%d", name, size), func(t *testing.T) {
				n := newNet(t, name, nil, ascending(size)...)
				n.RunUntil(300 * T)
				if _, err := n.agreed(); err != nil {
					t.Fatal(err)
				}
				if len(n.leaderOf) != 1 {
					t.Fatalf("%d terms had leaders, want 1 (a stable leader)", len(n.leaderOf))
				}
				n.safe()
			})
		}
	}
}

// The leader crashes; the others elect another (ALGORITHMS.md: liveness
// once failures stop).
func TestLeaderCrashReelects(t *testing.T) {
	for _, name := range algorithms {
		t.Run(name, func(t *testing.T) {
			n := newNet(t, name, nil, ascending(5)...)
			n.SetLatency(jitter)
			n.RunUntil(150 * T)
			old, err := n.agreed()
			if err != nil {
				t.Fatal(err)
			}
			n.Crash(int(old) - 1)
			n.RunUntil(600 * T)
			l, err := n.agreed()
			if err != nil {
				t.Fatal(err)
			}
			if l == old {
				t.Fatalf("still %d", l)
			}
			n.safe()
		})
	}
}

// Under a halves partition of an even cluster no side has a majority, so no
// side elects: from the start, nobody ever acts as leader; after an election,
// no later term gets one.
func TestHalvesElectNobody(t *testing.T) {
	for _, name := range algorithms {
		for _, size := range []int{4, 6} {
			lo, hi := positions(0, size/2), positions(size/2, size)
			t.Run(fmt.Sprintf("%s/%d/from-start", name, size), func(t *testing.T) {
				n := build(t, name, nil, ascending(size)...)
				n.Cut(lo, hi)
				n.Start()
				n.RunUntil(1000 * T)
				if len(n.leaderOf) != 0 {
					t.Fatalf("leaders %v under halves", n.leaderOf)
				}
				for p := range n.Size() {
					n.ExpectDecided(p)
				}
				n.safe()
			})
			t.Run(fmt.Sprintf("%s/%d/after-election", name, size), func(t *testing.T) {
				n := newNet(t, name, nil, ascending(size)...)
				n.RunUntil(150 * T)
				if _, err := n.agreed(); err != nil {
					t.Fatal(err)
				}
				first := maps.Clone(n.leaderOf)
				n.Cut(lo, hi)
				n.RunUntil(1000 * T)
				if len(n.leaderOf) != 1 {
					t.Fatalf("terms with leaders %v after the cut, want only the first (%v)", n.leaderOf, first)
				}
				n.safe()
			})
		}
	}
}

// A majority cut off from the leader elects a new one; the old leader, in
// the minority, cannot (chubby: its lease lapses first). After healing,
// everyone follows one leader.
func TestMajoritySideElects(t *testing.T) {
	for _, name := range algorithms {
		t.Run(name, func(t *testing.T) {
			n := newNet(t, name, nil, ascending(5)...)
			n.SetLatency(jitter)
			n.RunUntil(150 * T)
			old, err := n.agreed()
			if err != nil {
				t.Fatal(err)
			}
			lp := int(old) - 1
			minority := []int{lp, (lp + 1) % 5}
			var majority []int
			for p := range 5 {
				if !slices.Contains(minority, p) {
					majority = append(majority, p)
				}
			}
			if name == "zookeeper" {
				// zookeeper learns of failures only by its watch: the leader's
				// watcher must be cut off from it, so the minority is the
				// leader and the one above it (if any).
				minority = []int{lp}
				majority = positions(0, lp)
				if lp < 4 {
					minority = append(minority, lp+1)
				}
				if lp != 4 {
					// ALGORITHMS.md, zookeeper: "The highest is leader."
					t.Fatalf("zookeeper elected position %d, not the highest (4)", lp)
				}
			}
			n.Cut(minority, majority)
			n.RunUntil(800 * T)
			for _, p := range majority {
				if b := n.belief(p); b == old || b == 0 {
					t.Fatalf("process %d in the majority believes %d", p, b)
				}
			}
			n.Heal()
			n.RunUntil(2000 * T)
			if _, err := n.agreed(); err != nil && name != "zookeeper" {
				t.Fatal(err)
			}
			n.safe()
		})
	}
}

// The majorities-ring partition (N = 5): each process reaches only its two
// ring neighbours — a majority with itself — and no two processes share the
// same majority. Leaders may come and go; two in one term never.
func TestMajoritiesRing(t *testing.T) {
	for _, name := range algorithms {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(20) {
				n := buildSeeded(t, name, nil, seed, ascending(5)...)
				n.SetLatency(jitter)
				for p := range 5 {
					for q := range 5 {
						if d := (p - q + 5) % 5; d == 2 || d == 3 {
							n.Block(p, q)
						}
					}
				}
				n.Start()
				n.RunUntil(3000 * T)
				n.safe()
			}
		})
	}
}

// Chubby's classic hazard: the master sleeps through the end of its lease
// while the others elect a new one. When it wakes it must not act as master:
// no LEASE, no RENEW, and no two leases ever overlap.
func TestChubbyPausedMaster(t *testing.T) {
	n := newNet(t, "chubby", nil, ascending(5)...)
	n.SetLatency(jitter)
	n.RunUntil(100 * T)
	old, err := n.agreed()
	if err != nil {
		t.Fatal(err)
	}
	m := int(old) - 1
	n.Pause(m)
	n.RunUntil(400 * T)
	l, err := n.agreedAmong(m)
	if err != nil || l == old {
		t.Fatalf("while the master slept: leader %d, %v", l, err)
	}
	n.Take()
	n.Resume(m)
	n.RunUntil(401 * T) // whatever it missed is handed over at 400T
	for _, e := range n.Take() {
		if e.From == m && (e.Msg.Kind == kindLease || e.Msg.Kind == kindRenew) {
			t.Fatalf("the woken master sent %s", e.Msg.Kind)
		}
	}
	n.RunUntil(1000 * T)
	if got, err := n.agreed(); err != nil || got != l {
		t.Fatalf("after waking: %d, %v; want everyone on %d", got, err, l)
	}
	n.safe()
}

// The property: under seeded random schedules of crashes, pauses,
// partitions and heals, with jittered latency on links that may reorder, no
// quorum algorithm ever has two leaders in a term, a leader without a
// majority, or overlapping leases; and once the faults stop, every one
// elects a leader all live processes follow. (The simulator's version, with
// 1,000 schedules and bully for contrast, is TestSimRandomSchedulesKeepSafety.)
func TestRandomSchedulesKeepSafety(t *testing.T) {
	trials := 300
	if testing.Short() {
		trials = 50
	}
	for _, name := range algorithms {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			elected, stuck := 0, 0
			for seed := range uint64(trials) {
				n := randomSchedule(t, name, seed)
				if len(n.violations) > 0 {
					t.Fatalf("seed %d: %s", seed, n.violations[0])
				}
				if len(n.leaderOf) > 0 {
					elected++
				}
				// Liveness once failures stop: heal, wake everyone, wait.
				n.Heal()
				for p := range n.Size() {
					n.Resume(p)
				}
				n.RunUntil(3500 * T)
				if _, err := n.agreed(); err != nil {
					stuck++
					t.Errorf("seed %d: once the faults stopped: %v", seed, err)
				}
				n.safe()
			}
			t.Logf("%d of %d schedules elected during the faults; %d did not recover", elected, trials, stuck)
			if elected < trials/2 {
				t.Fatalf("only %d of %d schedules elected anyone: the property is vacuous", elected, trials)
			}
		})
	}
}

// randomSchedule runs one algorithm on 3..7 processes under a fault
// schedule drawn from seed: every 20T..120T one of crash, pause, resume,
// partition into random groups, or heal, for 1500T.
func randomSchedule(t *testing.T, name string, seed uint64) *net {
	r := rand.New(rand.NewPCG(seed, 11))
	size := 3 + r.IntN(5)
	n := buildSeeded(t, name, nil, seed, ascending(size)...)
	n.SetLatency(jitter)
	n.Start()
	crashes := 0
	for at := time.Duration(0); ; {
		at += time.Duration(20+r.IntN(100)) * T
		if at > 1500*T {
			break
		}
		p := r.IntN(size)
		switch k := r.IntN(10); {
		case k == 0 && crashes < (size-1)/2:
			crashes++
			n.At(at, func() { n.Crash(p) })
		case k <= 2:
			n.At(at, func() { n.Pause(p) })
		case k <= 4:
			n.At(at, func() { n.Resume(p) })
		case k <= 7:
			groups := make([][]int, 1+r.IntN(3))
			for q := range size {
				g := r.IntN(len(groups))
				groups[g] = append(groups[g], q)
			}
			n.At(at, func() { n.Heal(); n.Cut(groups...) })
		default:
			n.At(at, n.Heal)
		}
	}
	n.RunUntil(1500 * T)
	return n
}

func positions(lo, hi int) []int {
	var out []int
	for p := lo; p < hi; p++ {
		out = append(out, p)
	}
	return out
}
