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
			tab := newMachineTable(n, nil)
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

// A run's machines built in one array (nodes.Batched given a Batch) are
// kept as the array alone: the table hands back each element at its
// position, the array outlives garbage collections with no word per
// machine, and a machine put that is not the array's own (a restart's)
// turns the table into data words, or a plain slice for another type,
// handing back every machine as put.
func TestMachineTableOfABatch(t *testing.T) {
	const n = 1000
	for _, c := range []struct {
		name    string
		other   func(newMachine func() nodes.Machine) nodes.Machine // put at n/2 after the array's; nil: none
		regular bool
		mixed   bool
	}{
		{"the array's machines", nil, true, false},
		{"an element put again", nil, true, false},
		{"a fresh machine of the type", func(newMachine func() nodes.Machine) nodes.Machine { return newMachine() }, false, false},
		{"a machine of another type", func(func() nodes.Machine) nodes.Machine { return valMachine{-1} }, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := &nodes.Batch{}
			newMachine := nodes.Batched[ptrMachine](nodes.Config{N: n, Batch: b})
			tab := newMachineTable(n, b)
			if !tab.regular || tab.data != nil {
				t.Fatalf("a table of a batch of %d machines starts with data words", n)
			}
			want := make([]int, n)
			for i := range n {
				m := newMachine()
				m.(*ptrMachine).id = i
				want[i] = i
				tab.set(int32(i), m)
			}
			if c.name == "an element put again" {
				tab.set(n/2, tab.at(n/2))
			}
			if c.other != nil {
				m := c.other(newMachine)
				if p, ok := m.(*ptrMachine); ok {
					p.id = -1
				}
				want[n/2] = idOf(m)
				tab.set(n/2, m)
			}
			runtime.GC()
			reuse := make([]*ptrMachine, 10*n) // takes the memory of machines wrongly freed
			for j := range reuse {
				reuse[j] = &ptrMachine{-9}
			}
			runtime.GC()
			if tab.len() != n || tab.regular != c.regular || (tab.mixed != nil) != c.mixed {
				t.Fatalf("len %d, regular %v, mixed %v; want %d, %v, %v", tab.len(), tab.regular, tab.mixed != nil, n, c.regular, c.mixed)
			}
			for i := range n {
				m := tab.at(int32(i))
				if idOf(m) != want[i] {
					t.Fatalf("machine %d: %#v, want id %d", i, m, want[i])
				}
				if tab.dataWord(int32(i)) != words(&m).data {
					t.Fatalf("machine %d: data word differs", i)
				}
			}
			runtime.KeepAlive(reuse)
		})
	}
	// A Batch that does not hold the run's machines (none noted, or another
	// count) leaves the table to keep data words.
	for _, k := range []int{0, n - 1} {
		b := &nodes.Batch{}
		if k > 0 {
			nodes.Batched[ptrMachine](nodes.Config{N: k, Batch: b})
		}
		if tab := newMachineTable(n, b); tab.regular || len(tab.data) != n {
			t.Errorf("a batch of %d machines for a table of %d: regular %v, %d data words", k, n, tab.regular, len(tab.data))
		}
	}
}
