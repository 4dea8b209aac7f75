package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/workloads"
)

func TestParseParams(t *testing.T) {
	ps, err := parseParams("t1=2T, raft.tmin=150ms,raft.tmax=300ms")
	if err != nil {
		t.Fatal(err)
	}
	want := []param{{"", "t1", "2T"}, {"raft", "tmin", "150ms"}, {"raft", "tmax", "300ms"}}
	if len(ps) != len(want) {
		t.Fatalf("got %v", ps)
	}
	for i := range want {
		if ps[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, ps[i], want[i])
		}
	}
	for in, msg := range map[string]string{
		"t1":                  "want [ALGORITHM.]key=value",
		"t1=":                 "want [ALGORITHM.]key=value",
		".t1=2T":              "want [ALGORITHM.]key=value",
		"raft.=2T":            "want [ALGORITHM.]key=value",
		"t1=2T,t1=3T":         "t1 set twice",
		"raft.t=1,raft.t=2":   "raft.t set twice",
		"t1=2T,bully.t1=3T,x": "want [ALGORITHM.]key=value",
	} {
		if _, err := parseParams(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("parseParams(%q): %v, want %q", in, err, msg)
		}
	}
}

// FuzzParseParams: any input parses or fails with an error naming --param,
// and what parses prints back to entries that parse to the same.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{"t1=2T", "raft.tmin=150ms,raft.tmax=300ms", "a.b.c=1", "=", ",", "x=1,x=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := parseParams(s)
		if err != nil {
			if !strings.Contains(err.Error(), "--param") {
				t.Errorf("error without the flag's name: %v", err)
			}
			return
		}
		var parts []string
		for _, p := range ps {
			parts = append(parts, p.String())
		}
		again, err := parseParams(strings.Join(parts, ","))
		if err != nil || len(again) != len(ps) {
			t.Fatalf("%q printed as %q: %v %v", s, strings.Join(parts, ","), again, err)
		}
		for i := range ps {
			if again[i] != ps[i] {
				t.Errorf("%q: entry %d %+v reparsed as %+v", s, i, ps[i], again[i])
			}
		}
	})
}

// --algo takes "all" and "mutex" beside names: each algorithm once, in the
// order first chosen; from "all" on the sizes it allows there, named on
// every size.
func TestParseAlgosLists(t *testing.T) {
	names := func(as []workloads.Algo) (out []string) {
		for _, a := range as {
			out = append(out, fmt.Sprintf("%s/%s:%d", a.Alg.Name, a.Variant, a.UpTo))
		}
		return out
	}
	all, err := parseAlgos("all", "", "")
	if err != nil {
		t.Fatal(err)
	}
	mutex, err := parseAlgos("mutex", "", "")
	if err != nil {
		t.Fatal(err)
	}
	both, err := parseAlgos("all, mutex", "", "")
	if err != nil || !slices.Equal(names(both), append(names(all), names(mutex)...)) {
		t.Fatalf("all,mutex: %v (%v), want all's then mutex's", names(both), err)
	}
	etcd := slices.IndexFunc(all, func(a workloads.Algo) bool { return a.Alg.Name == "etcd-raft" })
	if etcd < 0 || all[etcd].UpTo == 0 {
		t.Fatalf("etcd-raft from all: %v, want its AllUpTo", names(all))
	}
	named, err := parseAlgos("raft,all,etcd-raft", "", "")
	if err != nil || len(named) != len(all) || named[0].Alg.Name != "raft" {
		t.Fatalf("raft,all,etcd-raft: %v (%v), want raft first and each once", names(named), err)
	}
	for _, a := range named {
		if a.Alg.Name == "etcd-raft" && a.UpTo != 0 {
			t.Errorf("etcd-raft named beside all runs up to %d, want every size", a.UpTo)
		}
	}
	if _, err := parseAlgos("all,nope", "", ""); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("all,nope: %v, want the unknown name", err)
	}
}
