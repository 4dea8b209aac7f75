package quorum_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/trial"
)

// Partitions, pauses and flapping links on the simulator (its fault
// effects), judged by the workloads checker.

var quorumAlgorithms = []string{"raft", "chubby", "zookeeper", "etcd-raft"}

// cut is a partition into the groups returned by groups, resolved when the
// fault starts: a message between two groups is lost.
func cut(name string, start trial.When, d time.Duration, groups func(v trial.View) [][]int) trial.Fault {
	return trial.Fault{Link: trial.Cut{}, Name: name, Start: start, For: d, Links: func(v trial.View) trial.LinkSet {
		of := make([]int, v.N())
		gs := groups(v)
		for i, g := range gs {
			for _, p := range g {
				of[p] = i + 1
			}
		}
		return trial.LinkSet{Has: func(from, to int) bool { return of[from] != of[to] }, Text: fmt.Sprint(gs)}
	}}
}

func halves(v trial.View) [][]int {
	var a, b []int
	for p := range v.N() {
		if p < v.N()/2 {
			a = append(a, p)
		} else {
			b = append(b, p)
		}
	}
	return [][]int{a, b}
}

// isolateLeader cuts off the leader of the moment, and with it the
// lowest-ranked process: a minority that holds the leader, while every
// leader's watcher (zookeeper) stays with the majority. Processes in no
// group (all of them, before anyone leads) are all on one side.
func isolateLeader(v trial.View) [][]int {
	l, low := v.Leader(), 0
	if l < 0 {
		return nil // nobody leads yet: nothing to cut
	}
	for p := range v.N() {
		if v.Rank(p).Less(v.Rank(low)) {
			low = p
		}
	}
	minority := []int{l}
	if low != l {
		minority = append(minority, low)
	}
	var rest []int
	for p := range v.N() {
		if !slices.Contains(minority, p) {
			rest = append(rest, p)
		}
	}
	return [][]int{minority, rest}
}

// majoritiesRing cuts every link between processes more than k apart on the
// ring of positions, N = 4k+1: each process then reaches exactly a majority
// (itself and k on each side), and no two reach the same one.
func majoritiesRing(n int) trial.Fault {
	k := (n - 1) / 4
	return trial.Fault{Link: trial.Cut{}, Name: "partition(majorities-ring)", Start: trial.When{Trigger: trial.AtStart},
		Links: func(v trial.View) trial.LinkSet {
			return trial.LinkSet{Has: func(from, to int) bool {
				d := (from - to + n) % n
				return min(d, n-d) > k
			}, Text: fmt.Sprintf("ring(d≤%d)", k)}
		}}
}

func atStart() trial.When { return trial.When{Trigger: trial.AtStart} }
func afterElected(d time.Duration) trial.When {
	return trial.When{Trigger: trial.LeaderElected, Delay: d}
}

// leaderAfter returns the leaders of the terms whose first ballot came at or
// after at.
func leadersAfter(v check.Verdict, at time.Duration) []int {
	var out []int
	for _, term := range v.Terms {
		if term.Ballot >= at && term.Leader >= 0 {
			out = append(out, term.Leader)
		}
	}
	return out
}

// The issue: "under a halves partition of an even cluster no side elects".
// etcd-raft's default (etcd's server) runs pre-vote, whose point is that no
// side even enters a term it cannot win: it asks (MsgPreVote), and stays.
func TestSimHalvesElectNobody(t *testing.T) {
	preVote, _ := nodes.KindByName("MsgPreVote")
	for _, name := range append(slices.Clone(quorumAlgorithms), "etcd-raft/plain") {
		for _, n := range []int{4, 6, 8} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				for seed := range uint64(10) {
					tr := run(t, name, nil, n, jittered, seed, 1000*T, false, nil,
						[]trial.Fault{cut("partition(halves)", atStart(), 0, halves)})
					if l := leadersAfter(tr.v, 0); len(l) > 0 || tr.v.Live || tr.v.Violations > 0 {
						t.Fatalf("seed %d: leaders %v, live %v, violations %v", seed, l, tr.v.Live, tr.v.Recorded)
					}
					switch {
					case name == "etcd-raft" && len(tr.v.Terms) > 0:
						t.Fatalf("seed %d: terms %+v entered despite pre-vote", seed, tr.v.Terms)
					case name == "etcd-raft" && tr.res.Sent[preVote] == 0:
						t.Fatalf("seed %d: nobody even asked for a pre-vote", seed)
					case name != "etcd-raft" && len(tr.v.Terms) == 0:
						t.Fatalf("seed %d: nobody even stood", seed)
					}
				}
			})
			t.Run(fmt.Sprintf("%s/%d/after-election", name, n), func(t *testing.T) {
				for seed := range uint64(10) {
					tr := run(t, name, nil, n, jittered, seed, 1000*T, false, nil,
						[]trial.Fault{cut("partition(halves)", afterElected(20*T), 0, halves)})
					split := tr.res.Faults[0].At
					if l := leadersAfter(tr.v, split); len(l) > 0 || tr.v.Violations > 0 {
						t.Fatalf("seed %d: leaders %v elected after the split at %v, violations %v", seed, l, split, tr.v.Recorded)
					}
				}
			})
		}
	}
}

// A majority cut off from the leader elects a new one; the minority never
// does (the checker's minority-leader rule would say so); after healing
// everyone follows one leader.
func TestSimMajorityElects(t *testing.T) {
	for _, name := range quorumAlgorithms {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(20) {
				tr := run(t, name, nil, 5, jittered, seed, 1500*T, false, nil,
					[]trial.Fault{cut("partition(leader+lowest)", afterElected(20*T), 500*T, isolateLeader)})
				split := tr.res.Faults[0].At
				if tr.v.Violations > 0 {
					t.Fatalf("seed %d: %v", seed, tr.v.Recorded)
				}
				if len(leadersAfter(tr.v, split)) == 0 {
					t.Fatalf("seed %d: the majority elected nobody after the split at %v (terms %+v)", seed, split, tr.v.Terms)
				}
				if !tr.v.Live || !tr.v.Correct {
					t.Fatalf("seed %d: after healing: live %v, correct %v, leader %q", seed, tr.v.Live, tr.v.Correct, tr.v.Leader)
				}
			}
		})
	}
}

// The issue: "under majorities-ring no two leaders of the same term exist".
// Every process sees a majority, so elections succeed, and leaders come and
// go; the checker counts any two in one term.
func TestSimMajoritiesRing(t *testing.T) {
	for _, name := range quorumAlgorithms {
		for _, n := range []int{5, 9} {
			t.Run(fmt.Sprintf("%s/%d", name, n), func(t *testing.T) {
				led := 0
				for seed := range uint64(50) {
					tr := run(t, name, nil, n, jittered, seed, 1000*T, false, nil, []trial.Fault{majoritiesRing(n)})
					if tr.v.Violations > 0 {
						t.Fatalf("seed %d: %v", seed, tr.v.Recorded)
					}
					led += len(leadersAfter(tr.v, 0))
				}
				if led == 0 {
					t.Fatal("no term had a leader: the test shows nothing")
				}
				t.Logf("%d terms with a leader over 50 runs", led)
			})
		}
	}
}

// Chubby's classic hazard: the master pauses (SIGSTOP) until long after its
// lease; the others elect a new master, and the old one, woken, must not act
// as master. The checker would record overlapping leases with both
// intervals. Raft and zookeeper, which have no lease, keep one leader per
// term in the same schedule.
func TestSimPausedLeader(t *testing.T) {
	for _, name := range quorumAlgorithms {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(20) {
				pause := trial.Fault{Effect: trial.EffPause, Name: "pause(leader)", Start: afterElected(5 * T), For: 300 * T,
					Targets: func(v trial.View) []int { return []int{v.Leader()} }}
				tr := run(t, name, nil, 5, jittered, seed, 1200*T, false, nil, []trial.Fault{pause})
				if tr.v.Violations > 0 {
					t.Fatalf("seed %d: %v", seed, tr.v.Recorded)
				}
				at := tr.res.Faults[0].At
				if len(leadersAfter(tr.v, at)) == 0 {
					t.Fatalf("seed %d: nobody replaced the paused leader", seed)
				}
				if !tr.v.Live || !tr.v.Correct {
					t.Fatalf("seed %d: after waking: live %v, correct %v", seed, tr.v.Live, tr.v.Correct)
				}
			}
		})
	}
}

// Flapping links: whoever leads is cut off (with the lowest process) for
// 30T every 80T, ten times. Safety throughout, and a leader at the end.
func TestSimFlappingLinks(t *testing.T) {
	var faults []trial.Fault
	for k := range 10 {
		faults = append(faults, cut("flap(leader)", trial.When{Trigger: trial.AtTime, At: time.Duration(100+80*k) * T}, 30*T, isolateLeader))
	}
	for _, name := range quorumAlgorithms {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(20) {
				tr := run(t, name, nil, 5, jittered, seed, 1500*T, false, nil, faults)
				if tr.v.Violations > 0 {
					t.Fatalf("seed %d: %v", seed, tr.v.Recorded)
				}
				if !tr.v.Live {
					t.Fatalf("seed %d: no leader known by a majority at the end", seed)
				}
			}
		})
	}
}

// The property of the issue: in 1,000 seeded random fault schedules —
// crashes of a minority, pauses, partitions into random groups, the leader
// cut off, false suspicions, jittered latency — no quorum algorithm ever has
// two leaders in a term, a leader without a majority, or (chubby)
// overlapping leases; bully, in the same schedules, shows violations.
// Restarts are left out: the simulator restarts a process as a fresh
// machine, without the term and vote Raft keeps on stable storage, and no
// quorum algorithm is safe with that amnesia.
func TestSimRandomSchedulesKeepSafety(t *testing.T) {
	trials := 1000
	if testing.Short() {
		trials = 100
	}
	for _, name := range append(slices.Clone(quorumAlgorithms), "bully") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			unsafe, live := 0, 0
			var first string
			for seed := range uint64(trials) {
				n, faults := randomFaults(seed)
				tr := run(t, name, nil, n, jittered, seed, 1000*T, false, nil, faults)
				if tr.v.Violations > 0 {
					unsafe++
					if first == "" {
						first = fmt.Sprintf("seed %d: %v", seed, tr.v.Recorded[0])
					}
				}
				if tr.v.Live {
					live++
				}
			}
			t.Logf("%s: %d of %d schedules unsafe, %d live at the deadline", name, unsafe, trials, live)
			if name == "bully" {
				if unsafe < trials/10 {
					t.Errorf("bully was unsafe in only %d of %d schedules", unsafe, trials)
				}
				return
			}
			if unsafe > 0 {
				t.Errorf("%d of %d schedules unsafe; the first: %s", unsafe, trials, first)
			}
		})
	}
}

// randomFaults draws a cluster size of 3..7 and three to eight faults from
// seed, each starting within the first 600T and healing within 200T.
func randomFaults(seed uint64) (int, []trial.Fault) {
	r := rand.New(rand.NewPCG(seed, 21))
	n := 3 + r.IntN(5)
	crashes := 0
	var faults []trial.Fault
	for range 3 + r.IntN(6) {
		start := trial.When{Trigger: trial.AtTime, At: time.Duration(r.IntN(600)) * T}
		d := time.Duration(20+r.IntN(180)) * T
		p := r.IntN(n)
		switch k := r.IntN(6); {
		case k == 0 && crashes < (n-1)/2:
			crashes++
			faults = append(faults, trial.Fault{Effect: trial.EffCrash, Name: "crash", Start: start,
				Targets: func(trial.View) []int { return []int{p} }})
		case k <= 1:
			faults = append(faults, trial.Fault{Effect: trial.EffPause, Name: "pause", Start: start, For: d,
				Targets: func(trial.View) []int { return []int{p} }})
		case k == 2:
			faults = append(faults, cut("partition(leader)", start, d, isolateLeader))
		case k == 3:
			groups := 2 + r.IntN(2)
			of := make([]int, n)
			for q := range of {
				of[q] = r.IntN(groups)
			}
			faults = append(faults, cut("partition(random)", start, d, func(trial.View) [][]int {
				gs := make([][]int, groups)
				for q, g := range of {
					gs[g] = append(gs[g], q)
				}
				return gs
			}))
		default:
			faults = append(faults, trial.Fault{Effect: trial.EffSuspect, Name: "suspect", Start: start,
				Targets: func(trial.View) []int { return []int{p} }})
		}
	}
	return n, faults
}

// etcd-raft keeps its hard state and log across a restart (nodes.
// StableStore), so its property holds with restarts too: the same 1,000
// schedules, plus one to three crashes that heal by restarting the process
// 1T..60T later, at any instant (mid-election included).
func TestSimRandomSchedulesWithRestartsKeepSafety(t *testing.T) {
	trials := 1000
	if testing.Short() {
		trials = 100
	}
	for _, name := range []string{"etcd-raft", "etcd-raft/plain"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			live, restarts := 0, 0
			for seed := range uint64(trials) {
				n, faults := randomFaults(seed)
				r := rand.New(rand.NewPCG(seed, 33))
				for range 1 + r.IntN(3) {
					p := r.IntN(n)
					faults = append(faults, trial.Fault{Effect: trial.EffCrash, Name: "crash",
						Start:   trial.When{Trigger: trial.AtTime, At: time.Duration(r.IntN(700)) * T},
						For:     time.Duration(1+r.IntN(60)) * T,
						Targets: func(trial.View) []int { return []int{p} }})
				}
				tr := run(t, name, nil, n, jittered, seed, 1000*T, false, nil, faults)
				if tr.v.Violations > 0 {
					t.Fatalf("seed %d: %v", seed, tr.v.Recorded)
				}
				for _, f := range tr.res.Faults {
					if strings.HasPrefix(f.What, "restart") {
						restarts++
					}
				}
				if tr.v.Live {
					live++
				}
			}
			t.Logf("%s: %d schedules safe, %d live at the deadline, %d restarts", name, trials, live, restarts)
			if restarts < trials {
				t.Fatalf("only %d restarts in %d schedules: the property is vacuous", restarts, trials)
			}
		})
	}
}
