// Command heaploop is the baseline the simulator's speed is measured
// against (issue "Scale without surprises"): the minimal discrete-event
// program a person would write for one Chang–Roberts election on a
// unidirectional ring under constant latency — processes as heap objects,
// a binary heap of events (container/heap) with one allocation per message,
// a random permutation of ids, the successor of the highest as the only
// initiator, so 3N−1 messages. It does the same deliveries as
//
//	electbench run --algo chang-roberts --nodes N --trials 1 \
//	    --initiators successor-of-max --latency 1ms --format csv
//
// and nothing else (no checker, no record, no rows), so the ratio of the
// two whole processes is what electbench's bookkeeping costs on top of the
// deliveries themselves.
//
// usage: go run ./cmd/heaploop -n 1000000
package main

import (
	"container/heap"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

const (
	election = iota
	elected
)

type message struct {
	kind int
	id   uint64
}

type event struct {
	at  time.Duration
	seq uint64
	to  *process
	m   message
}

type events []*event

func (h events) Len() int { return len(h) }
func (h events) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h events) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *events) Push(x any)   { *h = append(*h, x.(*event)) }
func (h *events) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

type process struct {
	id            uint64
	next          *process
	participating bool
	leader        uint64
}

type sim struct {
	now      time.Duration
	seq      uint64
	q        events
	latency  time.Duration
	messages int64
}

func (s *sim) send(to *process, m message) {
	s.messages++
	s.seq++
	heap.Push(&s.q, &event{at: s.now + s.latency, seq: s.seq, to: to, m: m})
}

func (s *sim) receive(p *process, m message) {
	switch {
	case m.kind == elected:
		p.leader = m.id
		p.participating = false
		if m.id != p.id {
			s.send(p.next, m)
		}
	case m.id == p.id:
		p.leader = p.id
		s.send(p.next, message{kind: elected, id: p.id})
	case m.id > p.id:
		p.participating = true
		s.send(p.next, m)
	case !p.participating:
		p.participating = true
		s.send(p.next, message{kind: election, id: p.id})
	}
}

func main() {
	n := flag.Int("n", 1000000, "processes on the ring")
	seed := flag.Uint64("seed", 1, "seed of the id permutation")
	flag.Parse()
	if *n < 2 {
		fmt.Fprintln(os.Stderr, "heaploop: -n must be at least 2")
		os.Exit(2)
	}
	procs := make([]*process, *n)
	perm := rand.New(rand.NewPCG(*seed, 0)).Perm(*n)
	for i := range procs {
		procs[i] = &process{id: uint64(perm[i] + 1)}
	}
	highest := 0
	for i, p := range procs {
		p.next = procs[(i+1)%*n]
		if p.id > procs[highest].id {
			highest = i
		}
	}
	s := &sim{latency: time.Millisecond}
	initiator := procs[(highest+1)%*n]
	initiator.participating = true
	s.send(initiator.next, message{kind: election, id: initiator.id})
	for s.q.Len() > 0 {
		e := heap.Pop(&s.q).(*event)
		s.now = e.at
		s.receive(e.to, e.m)
	}
	for _, p := range procs {
		if p.leader != uint64(*n) {
			fmt.Fprintf(os.Stderr, "heaploop: process %d decided %d, want %d\n", p.id, p.leader, *n)
			os.Exit(1)
		}
	}
	fmt.Printf("n=%d messages=%d turnaround=%dT\n", *n, s.messages, s.now/s.latency)
}
