package sim

import (
	"runtime"
	"testing"

	"github.com/electbench/electbench/nodes"
)

// Machines of several kinds of dynamic type, for the table below.
type (
	ptrMachine   struct{ id int }
	valMachine   struct{ id int }
	emptyMachine struct{}
)

func (*ptrMachine) Start(nodes.Env)                                {}
func (*ptrMachine) Initiate(nodes.Env)                             {}
func (*ptrMachine) Receive(nodes.Env, nodes.PeerID, nodes.Message) {}
func (*ptrMachine) Timeout(nodes.Env, nodes.TimerID)               {}
func (*ptrMachine) Suspect(nodes.Env, nodes.PeerID)                {}

func (valMachine) Start(nodes.Env)                                {}
func (valMachine) Initiate(nodes.Env)                             {}
func (valMachine) Receive(nodes.Env, nodes.PeerID, nodes.Message) {}
func (valMachine) Timeout(nodes.Env, nodes.TimerID)               {}
func (valMachine) Suspect(nodes.Env, nodes.PeerID)                {}

func (emptyMachine) Start(nodes.Env)                                {}
func (emptyMachine) Initiate(nodes.Env)                             {}
func (emptyMachine) Receive(nodes.Env, nodes.PeerID, nodes.Message) {}
func (emptyMachine) Timeout(nodes.Env, nodes.TimerID)               {}
func (emptyMachine) Suspect(nodes.Env, nodes.PeerID)                {}

// idOf tells the machines of the test apart without holding on to them.
func idOf(m nodes.Machine) int {
	switch m := m.(type) {
	case *ptrMachine:
		return m.id
	case valMachine:
		return 1_000_000 + m.id
	case emptyMachine:
		return -2
	}
	return -3
}

// The machine table hands back exactly the machine put at each position:
// compactly while every machine has one type, and as a plain slice once
// another type (or a nil machine) joins; the table alone keeps its
// machines alive through garbage collections.
func TestMachineTableKeepsMachines(t *testing.T) {
	for _, c := range []struct {
		name    string
		make    func(i int) nodes.Machine
		replace bool          // put other at n/2
		other   nodes.Machine // of the same type, of another, or nil
		mixed   bool
	}{
		{"one pointer type", func(i int) nodes.Machine { return &ptrMachine{i} }, true, &ptrMachine{-1}, false},
		{"one value type", func(i int) nodes.Machine { return valMachine{i} }, true, valMachine{-1}, false},
		{"empty structs", func(int) nodes.Machine { return emptyMachine{} }, false, nil, false},
		{"a second type", func(i int) nodes.Machine { return &ptrMachine{i} }, true, valMachine{-1}, true},
		{"a nil machine", func(i int) nodes.Machine { return &ptrMachine{i} }, true, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 1000
			want := make([]int, n)
			tab := newMachineTable(n)
			for i := range n {
				m := c.make(i)
				want[i] = idOf(m)
				tab.set(int32(i), m)
			}
			if c.replace {
				want[n/2] = idOf(c.other)
				tab.set(n/2, c.other)
			}
			runtime.GC()
			reuse := make([]*ptrMachine, 10*n) // takes the memory of machines wrongly freed
			for j := range reuse {
				reuse[j] = &ptrMachine{-9}
			}
			runtime.GC()
			if tab.len() != n || (tab.mixed != nil) != c.mixed {
				t.Fatalf("len %d, mixed %v; want %d, %v", tab.len(), tab.mixed != nil, n, c.mixed)
			}
			for i := range n {
				m := tab.at(int32(i))
				if idOf(m) != want[i] {
					t.Fatalf("machine %d: %#v, want id %d", i, m, want[i])
				}
				if m != nil && tab.dataWord(int32(i)) != words(&m).data {
					t.Fatalf("machine %d: data word differs", i)
				}
			}
			runtime.KeepAlive(reuse)
		})
	}
}
