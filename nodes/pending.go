package nodes

import "sync"

// Pending is the table of a Library's calls waiting for their answer, keyed
// by a call number the caller puts in its request and the peer echoes in
// its answer: a request/answer protocol carried as Messages, such as
// hashicorp/raft's RPCs or client-go's HTTP requests. The answer arrives on
// the node's goroutine (Library.Deliver) while the caller waits on a
// goroutine of the library's, so the table is safe for concurrent use.
// The zero value is empty and ready.
type Pending[T any] struct {
	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan T
}

// Open registers a new call: its number, never 0 and never repeated, and
// the channel its answer arrives on. The caller ends it with Close, after
// the answer or once it gives up.
func (p *Pending[T]) Open() (uint64, <-chan T) {
	answer := make(chan T, 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting == nil {
		p.waiting = map[uint64]chan T{}
	}
	p.next++
	p.waiting[p.next] = answer
	return p.next, answer
}

// Close forgets call id: an answer that comes later is dropped.
func (p *Pending[T]) Close(id uint64) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// Answer hands v to call id and reports whether a call took it. It never
// blocks: an answer to a call that gave up, or to no call, is dropped, and
// of two answers to one call (a duplicated message) the first is kept.
func (p *Pending[T]) Answer(id uint64, v T) bool {
	p.mu.Lock()
	answer := p.waiting[id]
	p.mu.Unlock()
	if answer == nil {
		return false
	}
	select {
	case answer <- v:
		return true
	default:
		return false
	}
}
