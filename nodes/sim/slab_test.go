package sim

import "testing"

// Payloads never move: a pointer taken before the slab grows by several
// chunks still reads what was written through it, and freed slots come back
// last-freed-first.
func TestSlabKeepsPayloadsInPlace(t *testing.T) {
	var b slab
	const n = 3*slabChunk + 7
	ptrs := make([]*payload, n)
	for i := range n {
		slot, p := b.alloc()
		if int(slot) != i {
			t.Fatalf("alloc %d gave slot %d", i, slot)
		}
		p.gen = uint32(i)
		ptrs[i] = p
	}
	for i, p := range ptrs {
		if p != b.at(int32(i)) || p.gen != uint32(i) {
			t.Fatalf("slot %d moved or changed: gen %d", i, p.gen)
		}
	}
	b.release(5)
	b.release(slabChunk + 1)
	if slot, _ := b.alloc(); slot != slabChunk+1 {
		t.Fatalf("reused slot %d, want the last freed, %d", slot, slabChunk+1)
	}
	if slot, _ := b.alloc(); slot != 5 {
		t.Fatalf("reused slot %d, want 5", slot)
	}
	if slot, _ := b.alloc(); slot != n {
		t.Fatalf("fresh slot %d, want %d", slot, n)
	}
}
