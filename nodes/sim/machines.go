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
// garbage collector to scan). When the constructor put the run's machines
// in one array (nodes.Batch), the table keeps no word per process at all:
// the data word of position p is the array's start plus p elements, one
// pointer for the collector however many processes there are. A machine
// put that is not the array's (a restart's fresh one) turns the table into
// the data words, and a machine of another type (or a nil one) into a plain
// slice of interfaces, for the rest of the run: what the table hands back
// is always the machine put in.
type machineTable struct {
	tab unsafe.Pointer // the type word every machine in data (or the array) shares; nil before the first
	// While regular, the machine at p is the array's element p: data word
	// base + p·stride. base points into the array and keeps all of it
	// alive; the table never forms a pointer beyond its n elements.
	regular bool
	base    unsafe.Pointer
	stride  uintptr
	n       int
	data    []unsafe.Pointer // the machines' data words, by position; nil while regular or once mixed
	mixed   []nodes.Machine  // by position, once machines differ in type
}

// iface is the layout of an interface value with methods (the runtime's
// iface): the word of its dynamic type's method table, then its data word,
// which always points to the value (or is nil).
type iface struct{ tab, data unsafe.Pointer }

func words(m *nodes.Machine) *iface { return (*iface)(unsafe.Pointer(m)) }

// newMachineTable prepares the table of n machines; b is the Batch the
// run's constructor was given: when it holds n machines, the table starts
// regular, the machines being the array's elements (the simulator takes
// them at once, Batch.Take) until set says otherwise.
func newMachineTable(n int, b *nodes.Batch) machineTable {
	if first, stride, k := b.Layout(); k == n && n > 0 && first != nil {
		w := words(&first)
		return machineTable{tab: w.tab, regular: true, base: w.data, stride: stride, n: n}
	}
	return machineTable{data: make([]unsafe.Pointer, n)}
}

func (t *machineTable) len() int {
	switch {
	case t.regular:
		return t.n
	case t.mixed != nil:
		return len(t.mixed)
	}
	return len(t.data)
}

// element is the data word of the array's element p (regular tables).
func (t *machineTable) element(p int32) unsafe.Pointer {
	return unsafe.Add(t.base, uintptr(p)*t.stride)
}

// at returns the machine at position p.
func (t *machineTable) at(p int32) nodes.Machine {
	var m nodes.Machine
	switch {
	case t.regular:
		*words(&m) = iface{t.tab, t.element(p)}
	case t.mixed != nil:
		m = t.mixed[p]
	default:
		*words(&m) = iface{t.tab, t.data[p]}
	}
	return m
}

// set puts m at position p.
func (t *machineTable) set(p int32, m nodes.Machine) {
	w := words(&m)
	if t.regular {
		if w.tab == t.tab && w.data == t.element(p) {
			return // the array's own element: nothing to note
		}
		t.data = make([]unsafe.Pointer, t.n)
		for i := range int32(t.n) {
			t.data[i] = t.element(i)
		}
		t.regular, t.base = false, nil
	}
	if t.mixed != nil {
		t.mixed[p] = m
		return
	}
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
	switch {
	case t.regular:
		return t.element(p)
	case t.mixed != nil:
		return words(&t.mixed[p]).data
	}
	return t.data[p]
}
