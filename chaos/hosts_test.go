package chaos

import (
	"slices"
	"strings"
	"testing"
)

// hostedWorld is a world whose positions run on hosts (trial.Hosted).
type hostedWorld struct {
	*world
	host []int
}

func (w hostedWorld) Hosts() int     { return slices.Max(w.host) + 1 }
func (w hostedWorld) Host(p int) int { return w.host[p] }

// host(h) selects the processes on host h, in a world that has hosts, and
// nothing in one that has none; a host-partition groups whole hosts.
func TestHostSelector(t *testing.T) {
	w := hostedWorld{newWorld(3, 9, 4, 1, 7, 2), []int{1, 0, 2, 1, 0, 2}}
	for sel, want := range map[string][]int{
		"host(0)": {1, 4}, "host(1)": {0, 3}, "host(2),host(0)": {2, 5, 1, 4}, "host(3)": nil, "successor(host(0))": {2, 5},
	} {
		s, err := ParseSelector(sel)
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if got := s.Resolve(w); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", sel, got, want)
		}
		if got := s.Resolve(w.world); len(got) > 0 {
			t.Errorf("%s without hosts = %v, want nothing", sel, got)
		}
	}
	for _, bad := range []string{"host(-1)", "host(x)", "host()"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	g, _ := ParseSelector("host(2)")
	f := Fault{Kind: "host-partition", Shape: Shape{Name: "groups"}, Groups: []Selector{g}}
	ls := f.LinkSet(w)
	if ls.Text != "0,1,3,4|2,5" || !ls.Has(2, 0) || !ls.Has(0, 5) || ls.Has(0, 1) {
		t.Errorf("host-partition of host(2): %s", ls.Text)
	}
	if f.Label() != "host-partition(groups)" {
		t.Errorf("label %q", f.Label())
	}
}

// A fault naming hosts is refused, saying why, where the run has none or
// fewer than it names; a cut between hosts needs two.
func TestCheckHosts(t *testing.T) {
	h3, _ := ParseSelector("lowest,host(3)")
	h1, _ := ParseSelector("host(1)")
	for _, c := range []struct {
		f     Fault
		hosts int
		want  string
	}{
		{Fault{Kind: "crash", Target: h1}, 0, "host(1) selects the processes of a host, and this run has none"},
		{Fault{Kind: "crash", Target: h3}, 3, "host(3) is none of the run's 3 hosts"},
		{Fault{Kind: "partition", Shape: Shape{Name: "groups"}, Groups: []Selector{h1}}, 0, "this run has none"},
		{Fault{Kind: "host-partition", Shape: Shape{Name: "halves"}}, 1, "host-partition cuts between hosts, and this run has 1"},
		{Fault{Kind: "host-partition", Shape: Shape{Name: "one-way"}, From: h1}, 2, ""},
		{Fault{Kind: "crash", Target: h1}, 2, ""},
	} {
		err := c.f.CheckHosts(c.hosts)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s on %d hosts: %v, want %q", c.f.Kind, c.hosts, err, c.want)
		}
	}
}
