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
// they are still in the cache. They are linked through the gen field of
// their payloads rather than listed in a slice: once bully's 25 million
// pending messages at N = 4,096 were delivered, the slice held them all,
// 100 MB and the copies of its growth.
type slab struct {
	// chunks are slices, not pointers to arrays: indexing a pointer to
	// an array checks it for nil by a load of the array's first word, a
	// cache miss of its own at every access to a slot of a big pending
	// set (bully at N = 4,096: 5% of the trial's time), where a slice's
	// bounds check reads its header, in the cache.
	chunks [][]payload
	used   int32 // slots ever handed out
	free   int32 // the last freed slot plus one; 0 for none
}

// alloc returns a free slot and its payload, for the caller to fill in.
func (b *slab) alloc() (int32, *payload) {
	if b.free > 0 {
		slot := b.free - 1
		p := b.at(slot)
		b.free = int32(p.gen) // the next freed slot plus one (release)
		return slot, p
	}
	slot := b.used
	if int(slot>>slabChunkBits) == len(b.chunks) {
		b.chunks = append(b.chunks, make([]payload, slabChunk))
	}
	b.used++
	return slot, b.at(slot)
}

// at is the payload in a slot.
func (b *slab) at(slot int32) *payload {
	return &b.chunks[slot>>slabChunkBits][slot&(slabChunk-1)]
}

// release returns a slot; its payload may be overwritten by the next
// alloc, and its gen is at once.
func (b *slab) release(slot int32) {
	b.at(slot).gen = uint32(b.free)
	b.free = slot + 1
}
