package chaos

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse: no input makes the parser panic or hang, whatever parses
// resolves against a small world without panicking, and Format writes it
// as a file that parses back to it. Inputs are bounded by
// MaxFileSize (Parse refuses larger ones); the fuzzer's stay far below.
func FuzzParse(f *testing.F) {
	for _, name := range BuiltinNames() {
		b, _ := Builtin(name)
		f.Add(b)
	}
	bad, _ := filepath.Glob("testdata/bad/*.*")
	for _, p := range bad {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a: &x [*x, *x]\nb: *x\n"))
	f.Add([]byte("name: n\nalgorithms: [raft]\nfaults: [{kind: crash, target: leader, at: leader-elected+2T+uniform(0,75ms)}]\n"))
	f.Add([]byte("name: n\nalgorithms: [ring]\nfaults: [{kind: partition, shape: groups, groups: [[0], [successor(1), random(2)]]}]\n"))
	f.Add([]byte("name: n\nalgorithms: [bully]\ntrials: 1\ndraws: {network: [1, 0x10, 18446744073709551615], processes: [[], [2]]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		scs, err := Parse("fuzz.yaml", data)
		if err != nil {
			if _, ok := err.(Errors); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, s := range scs {
			roundTrip(t, s)
			for n := 2; n <= 6; n += 4 {
				w := newWorld(make([]uint64, n)...)
				for i := range w.ranks {
					w.ranks[i] = uint64(n - i)
				}
				w.initiators = []int{0}
				for i := range s.Faults {
					fl := &s.Faults[i]
					fl.Targets(w)
					fl.ObserverSet(w)
					if k := fl.KindInfo(); k.Class == LinkFault || k.Class == PartitionFault {
						l := fl.LinkSet(w)
						l.Has(0, n-1)
					}
				}
			}
		}
	})
}

// roundTrip fails t unless s, formatted, parses back to s.
func roundTrip(t *testing.T, s *Scenario) {
	t.Helper()
	out, err := Format(s)
	if err != nil {
		t.Fatalf("formatting %s: %v", s.Name, err)
	}
	back, err := Parse("formatted", out)
	if err != nil || len(back) != 1 {
		t.Fatalf("formatted %s does not parse back (%d scenarios): %v\n%s", s.Name, len(back), err, out)
	}
	if a, b := comparable(s), comparable(back[0]); !reflect.DeepEqual(a, b) {
		t.Fatalf("formatting changed %s\nbefore %+v\nafter  %+v\n%s", s.Name, a, b, out)
	}
}
