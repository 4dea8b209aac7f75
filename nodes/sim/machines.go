package sim

import (
	"unsafe"

	"github.com/electbench/electbench/nodes"
)

// machineTable holds a run's machines by position. An interface value is two
// words, its dynamic type's and its data's, and one constructor makes every
// machine of a run, nearly always of one type: the table then keeps that
// type word once and each machine's data word, 8 bytes a process rather
// than 16 (80 MB fewer at ten million processes, and half the words for the
// garbage collector to scan). A machine of another type (or a nil one)
// turns the table into a plain slice of interfaces, for the rest of the run:
// what the table hands back is always the machine put in.
type machineTable struct {
	tab   unsafe.Pointer   // the type word every machine in data shares; nil before the first
	data  []unsafe.Pointer // the machines' data words, by position; nil once mixed
	mixed []nodes.Machine  // by position, once machines differ in type
}

// iface is the layout of an interface value with methods (the runtime's
// iface): the word of its dynamic type's method table, then its data word,
// which always points to the value (or is nil).
type iface struct{ tab, data unsafe.Pointer }

func words(m *nodes.Machine) *iface { return (*iface)(unsafe.Pointer(m)) }

func newMachineTable(n int) machineTable {
	return machineTable{data: make([]unsafe.Pointer, n)}
}

func (t *machineTable) len() int {
	if t.mixed != nil {
		return len(t.mixed)
	}
	return len(t.data)
}

// at returns the machine at position p.
func (t *machineTable) at(p int32) nodes.Machine {
	if t.mixed != nil {
		return t.mixed[p]
	}
	var m nodes.Machine
	*words(&m) = iface{t.tab, t.data[p]}
	return m
}

// set puts m at position p.
func (t *machineTable) set(p int32, m nodes.Machine) {
	if t.mixed != nil {
		t.mixed[p] = m
		return
	}
	w := words(&m)
	if w.tab != nil && (t.tab == nil || t.tab == w.tab) {
		t.tab = w.tab
		t.data[p] = w.data
		return
	}
	t.mixed = make([]nodes.Machine, len(t.data))
	for i, d := range t.data {
		if d != nil {
			*words(&t.mixed[i]) = iface{t.tab, d}
		}
	}
	t.data = nil
	t.mixed[p] = m
}

// dataWord is the data word of the machine at p, which warm reads a byte
// of: for every machine type a pointer to valid memory (the machine, or
// zerobase for an empty struct). A process is given its machine before any
// event, so it is never nil there.
func (t *machineTable) dataWord(p int32) unsafe.Pointer {
	if t.mixed != nil {
		return words(&t.mixed[p]).data
	}
	return t.data[p]
}
