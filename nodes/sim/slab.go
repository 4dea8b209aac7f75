package sim

// slabChunk is how many payloads one chunk of the slab holds.
const (
	slabChunkBits = 10
	slabChunk     = 1 << slabChunkBits
)

// slab holds the payloads of queued events by slot number, so that queues
// move small entries rather than whole messages. It grows a chunk at a time
// and never moves a payload: a pointer into it stays valid while its slot
// is held, and a million pending events take one allocation per thousand
// rather than a doubling copy of everything so far (which, for fresh memory,
// is mostly page faults). Freed slots are reused last-freed-first, while
// they are still in the cache.
type slab struct {
	chunks []*[slabChunk]payload
	used   int32 // slots ever handed out
	free   []int32
}

// alloc returns a free slot and its payload, for the caller to fill in.
func (b *slab) alloc() (int32, *payload) {
	if k := len(b.free); k > 0 {
		slot := b.free[k-1]
		b.free = b.free[:k-1]
		return slot, b.at(slot)
	}
	slot := b.used
	if int(slot>>slabChunkBits) == len(b.chunks) {
		b.chunks = append(b.chunks, new([slabChunk]payload))
	}
	b.used++
	return slot, b.at(slot)
}

// at is the payload in a slot.
func (b *slab) at(slot int32) *payload {
	return &b.chunks[slot>>slabChunkBits][slot&(slabChunk-1)]
}

// release returns a slot; its payload may be overwritten by the next alloc.
func (b *slab) release(slot int32) { b.free = append(b.free, slot) }
