package nodes_test

import (
	"testing"
	"unsafe"

	"github.com/electbench/electbench/nodes"
)

// counter is a machine with state, to tell machines apart.
type counter struct{ n, pos int }

func (*counter) Start(nodes.Env)                                {}
func (*counter) Initiate(nodes.Env)                             {}
func (*counter) Receive(nodes.Env, nodes.PeerID, nodes.Message) {}
func (*counter) Timeout(nodes.Env, nodes.TimerID)               {}
func (*counter) Suspect(nodes.Env, nodes.PeerID)                {}

// Given a Batch, Batched's first N machines are the elements of one array
// in the order made, as the Batch says, each a fresh zero machine; the
// machines after them, and every machine without a Batch, are fresh zero
// machines too, each its own.
func TestBatched(t *testing.T) {
	const n = 100
	for _, withBatch := range []bool{true, false} {
		var b *nodes.Batch
		if withBatch {
			b = &nodes.Batch{}
		}
		newMachine := nodes.Batched[counter](nodes.Config{N: n, Batch: b})
		first, stride, k := b.Layout()
		if withBatch && (k != n || stride != unsafe.Sizeof(counter{}) || first == nil) {
			t.Fatalf("Layout = %v, %d, %d; want the first machine, %d, %d", first, stride, k, unsafe.Sizeof(counter{}), n)
		}
		if !withBatch && (first != nil || k != 0) {
			t.Fatalf("Layout of no batch = %v, %d", first, k)
		}
		seen := map[*counter]bool{}
		for i := range n + 10 {
			m := newMachine().(*counter)
			if *m != (counter{}) || seen[m] {
				t.Fatalf("machine %d: %+v, seen before %v; want a fresh zero machine", i, *m, seen[m])
			}
			seen[m] = true
			m.n, m.pos = 1, i
			if withBatch && i < n {
				want := unsafe.Add(unsafe.Pointer(first.(*counter)), uintptr(i)*stride)
				if unsafe.Pointer(m) != want {
					t.Fatalf("machine %d is not element %d of the batch", i, i)
				}
			}
		}
	}
}

// Take hands the array's machines out at once: the constructor's next
// machine is a fresh one outside the array, and a second Take, or a Take
// without an array, changes nothing.
func TestBatchTake(t *testing.T) {
	const n = 50
	b := &nodes.Batch{}
	newMachine := nodes.Batched[counter](nodes.Config{N: n, Batch: b})
	first, stride, _ := b.Layout()
	b.Take()
	b.Take()
	lo := uintptr(unsafe.Pointer(first.(*counter)))
	hi := lo + n*stride
	for i := range 3 {
		m := newMachine().(*counter)
		if p := uintptr(unsafe.Pointer(m)); p >= lo && p < hi || *m != (counter{}) {
			t.Fatalf("machine %d after Take: %+v at %#x, inside the array [%#x, %#x)", i, *m, p, lo, hi)
		}
	}
	var none *nodes.Batch
	none.Take()
	(&nodes.Batch{}).Take()
}
