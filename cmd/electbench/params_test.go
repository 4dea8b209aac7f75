package main

import (
	"strings"
	"testing"
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
