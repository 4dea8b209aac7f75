package harness_test

import (
	"cmp"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/nftables"
	vnetns "github.com/vishvananda/netns"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/trial"
)

// TestNetnsHostPartition: live raft at N = 9 on three --netns hosts, host
// 2 (three nodes, a minority) cut from the others in the kernel
// (host-partition: nftables rules in the hosts' namespaces) from the
// start for 200T. Both ways, the minority's nodes neither elect nor hear
// a leader while the cut holds, and the majority's elect one of their
// own. One way (from host 2 to the others) no message of the minority
// reaches the majority while it holds (as both ways), so no node of the
// minority leads; the cut being packets, the TCP acknowledgements of the
// links into host 2 are dropped too. Healed,
// the cut's rules are gone from every host; after Close, the hosts too.
// Crashing host 2 (crash host(2) once a leader is elected) kills its three
// nodes together, and the majority's leader, or a new one, leads.
func TestNetnsHostPartition(t *testing.T) {
	opt := options(t)
	opt.Netns = 3
	testHostPartition(t, opt)
}

// TestAgentsHostPartition is TestNetnsHostPartition through an agent in
// each host (--netns 3 --agents): the receiving host's agent makes the
// cut's rules in its host, and the agents kill host 2's nodes.
func TestAgentsHostPartition(t *testing.T) {
	testHostPartition(t, agentsOptions(t, 3))
}

func testHostPartition(t *testing.T, opt harness.Options) {
	r := runtime(t, opt)
	const T = 5 * time.Millisecond
	// The faults as a scenario's host-partition and crash host(2) compile
	// (chaos, above this package's floor, is not imported here).
	both := hostFault("host-partition(groups)", func(v trial.View, from, to int) bool {
		return (hostOf(v, from) == 2) != (hostOf(v, to) == 2)
	})
	oneWay := hostFault("host-partition(one-way)", func(v trial.View, from, to int) bool {
		return hostOf(v, from) == 2 && hostOf(v, to) != 2
	})
	for _, c := range []struct {
		name string
		f    trial.Fault
	}{{"both ways", both}, {"one way", oneWay}} {
		t.Run(c.name, func(t *testing.T) {
			c.f.For = 200 * T
			cfg := config(t, "raft", random(9, 3), nil, T)
			cfg.Deadline = 400 * T
			cfg.Faults = []trial.Fault{c.f}
			res, j := runJudged(t, r, cfg, true)
			if v := j.verdict(&res.Record); v.Violations > 0 {
				t.Errorf("unsafe: %+v", v.Recorded)
			}
			cut := minorityOf(t, res.Faults)
			var healed time.Duration = -1
			for _, e := range res.Faults {
				if strings.HasPrefix(e.What, "heal host-partition") {
					healed = e.At
				}
			}
			if healed < 0 {
				t.Fatalf("no heal in the schedule %v", res.Faults)
			}
			majorityDecided, received := false, 0
			for _, e := range j.events {
				if e.Kind == trial.EvRecv && e.At < healed && slices.Contains(cut, int(e.P)) && !slices.Contains(cut, int(e.Q)) {
					received++
				}
				if e.Kind != trial.EvDecide || e.At >= healed {
					continue
				}
				leader := slices.Index(res.Ranks, e.Leader)
				if slices.Contains(cut, leader) {
					t.Errorf("%v: position %d decided %d, of the cut minority %v, leader while the cut held", e.At, e.P, leader, cut)
				}
				if slices.Contains(cut, int(e.P)) && c.name == "both ways" {
					t.Errorf("%v: position %d of the cut minority %v heard a leader while the cut held", e.At, e.P, cut)
				}
				majorityDecided = majorityDecided || !slices.Contains(cut, int(e.P))
			}
			if received > 0 {
				t.Errorf("the majority received %d messages from host 2 while the cut held", received)
			}
			if !majorityDecided {
				t.Errorf("the majority elected nobody while host 2 was cut (healed at %v)", healed)
			}
			if rules := hostRules(t); rules > 0 {
				t.Errorf("%d nftables rules left in the hosts once the cut healed", rules)
			}
		})
	}
	t.Run("crash a host", func(t *testing.T) {
		crash := trial.Fault{Effect: trial.EffCrash, Name: "crash", Start: trial.When{Trigger: trial.LeaderElected},
			Targets: func(v trial.View) []int {
				var out []int
				for p := range v.N() {
					if hostOf(v, p) == 2 {
						out = append(out, p)
					}
				}
				return out
			}}
		cfg := config(t, "raft", random(9, 4), nil, T)
		cfg.Deadline = 400 * T
		cfg.Faults = []trial.Fault{crash}
		res, j := runJudged(t, r, cfg, false)
		v := j.verdict(&res.Record)
		if v.Violations > 0 {
			t.Errorf("unsafe: %+v", v.Recorded)
		}
		var down []int
		for _, c := range res.Crashes {
			down = append(down, c.Pos)
			// One fault's targets, killed one after another: within T.
			if d := c.At - res.Crashes[0].At; d < 0 || d > T {
				t.Errorf("host 2's nodes crashed at %v and %v, not together", res.Crashes[0].At, c.At)
			}
		}
		if len(down) != 3 {
			t.Fatalf("crashed %v, want host 2's three nodes", down)
		}
		if l := leaderPos(t, res.Ranks, v.Leader); v.Leader == "" || slices.Contains(down, l) {
			t.Errorf("leader %q (position %d) at the end, with host 2 (%v) down", v.Leader, l, down)
		}
	})
	r.Close()
	if left := hostsOf(os.Getpid(), cmp.Or(owner.Token(), "x")); len(left) > 0 {
		t.Errorf("after Close: %v", left)
	}
}

// minorityOf reads the positions of host 2 from the schedule's first
// host-partition entry, "host-partition(groups)[0,1,3,4,5,8|2,6,7]" or
// "host-partition(one-way)[2,6,7>0,1,3,4,5,8]": its group of three.
func minorityOf(t *testing.T, sched []trial.FaultEvent) []int {
	t.Helper()
	for _, e := range sched {
		rest, ok := strings.CutPrefix(e.What, "host-partition(")
		if !ok {
			continue
		}
		_, groups, _ := strings.Cut(rest, "[")
		for _, g := range strings.FieldsFunc(groups, func(r rune) bool { return r == '|' || r == '>' || r == ']' }) {
			if ps := strings.Split(g, ","); len(ps) == 3 {
				var out []int
				for _, p := range ps {
					n, err := strconv.Atoi(p)
					if err != nil {
						t.Fatalf("schedule entry %q: %v", e.What, err)
					}
					out = append(out, n)
				}
				return out
			}
		}
		t.Fatalf("schedule entry %q: no group of host 2's three positions", e.What)
	}
	t.Fatalf("no host-partition in the schedule %v", sched)
	return nil
}

// hostRules counts the nftables rules in this process's --netns hosts.
func hostRules(t *testing.T) int {
	t.Helper()
	paths := hostsOf(os.Getpid(), cmp.Or(owner.Token(), "x"))
	rules := 0
	for _, p := range paths {
		if !strings.HasPrefix(p, "/run/netns/") {
			continue
		}
		ns, err := vnetns.GetFromPath(p)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := nftables.New(nftables.WithNetNSFd(int(ns)))
		if err != nil {
			t.Fatal(err)
		}
		tables, err := conn.ListTablesOfFamily(nftables.TableFamilyIPv4)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			chains, _ := conn.ListChainsOfTableFamily(nftables.TableFamilyIPv4)
			for _, ch := range chains {
				if ch.Table.Name == tb.Name {
					rs, _ := conn.GetRules(tb, ch)
					rules += len(rs)
				}
			}
		}
		ns.Close()
	}
	return rules
}

// hostOf is position p's host, as host(h) resolves it: the live
// injector's view maps positions to hosts (trial.Hosted).
func hostOf(v trial.View, p int) int { return v.(trial.Hosted).Host(p) }

// hostFault is a host-partition from the start over the links has keeps,
// written in the schedule as chaos writes it: host 2's positions, then
// the others' (2,6,8|0,1,3,4,5,7, in brackets), which minorityOf reads.
func hostFault(name string, has func(v trial.View, from, to int) bool) trial.Fault {
	return trial.Fault{Link: trial.HostCut{}, Name: name,
		Links: func(v trial.View) trial.LinkSet {
			var groups [2][]string
			for p := range v.N() {
				i := 1
				if hostOf(v, p) == 2 {
					i = 0
				}
				groups[i] = append(groups[i], strconv.Itoa(p))
			}
			text := strings.Join(groups[0], ",") + "|" + strings.Join(groups[1], ",")
			return trial.LinkSet{Has: func(from, to int) bool { return has(v, from, to) }, Text: text}
		}}
}
