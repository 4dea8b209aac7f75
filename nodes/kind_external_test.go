package nodes

import (
	"strings"
	"sync"
	"testing"
)

// External programs' kinds and timers register while trials run, from any
// goroutine, in a namespace of their own keyed by name and class.
func TestExternalKinds(t *testing.T) {
	var wg sync.WaitGroup
	got := make([]Kind, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := ExternalKind("ext-test_Type", ElectionClass)
			if err != nil {
				t.Error(err)
			}
			got[i] = k
		}()
	}
	wg.Wait()
	k := got[0]
	for _, g := range got {
		if g != k {
			t.Fatalf("one name, two kinds: %v", got)
		}
	}
	if !k.Valid() || !k.IsExternal() || !k.IsElection() || k.String() != "ext-test_Type" || k >= Kind(NumKinds()) {
		t.Fatalf("kind %d: valid %v external %v election %v name %q", k, k.Valid(), k.IsExternal(), k.IsElection(), k)
	}
	m, err := ExternalKind("ext-test_Type", MaintenanceClass)
	if err != nil || m == k || m.IsElection() {
		t.Fatalf("the maintenance kind of the same name: %v %v", m, err)
	}
	// A built-in kind of the same name is another kind.
	if e, _ := ExternalKind("TEST_ELECTION", ElectionClass); e == testKind || testKind.IsExternal() {
		t.Fatal("an external kind took a built-in's number")
	}
	if (Message{Kind: k, A: 3, B: 41}).EncodedSize() != 41 {
		t.Fatal("an external message is charged its body's size, Message.B")
	}
	if _, err := (Message{Kind: k}).AppendBinary(nil); err == nil {
		t.Fatal("the canonical codec encoded an external kind")
	}
	for _, bad := range []string{"", "has space", strings.Repeat("x", 65), "é"} {
		if _, err := ExternalKind(bad, ElectionClass); err == nil {
			t.Errorf("type %q accepted", bad)
		}
		if _, err := ExternalTimer(bad); err == nil {
			t.Errorf("timer %q accepted", bad)
		}
	}
	tm, err := ExternalTimer("t-1")
	if err != nil || !tm.IsExternal() || tm.String() != "t-1" || testTimer.IsExternal() {
		t.Fatalf("timer %v %v", tm, err)
	}
	if again, _ := ExternalTimer("t-1"); again != tm {
		t.Fatal("one timer name, two timers")
	}
}
