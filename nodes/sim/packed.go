package sim

import "github.com/electbench/electbench/nodes"

// A message in the slab is packed (payload): its ranks by their 32-bit
// identities when they are small (pack), else by handle into the
// trial's rank table (sim.full), rather than by value, so that a pending
// message costs 40 bytes there instead of 160, and the slab holds no
// pointer for the collector to scan (bully at N = 4,096 under a random
// latency holds about 25 million messages at once: 7.6 GB at 160 bytes).
// A rank handle is a position whose rank equals the message's; a message
// with a body, or with a rank that is none of the few it is compared with
// (pack), is kept whole in the wide store and its payload says where.
const (
	handleZero int32 = -1 // the zero Rank
	handleWide int32 = -2 // in rank: the message is whole in wide, at aux
	handleNone int32 = -3 // in rxRank and rxAux: no handle known
)

// wide holds the messages in flight that do not pack, by index, and reuses
// the indexes it is given back.
type wide struct {
	m    []nodes.Message
	free []int32
}

func (w *wide) put(m *nodes.Message) int32 {
	if k := len(w.free); k > 0 {
		i := w.free[k-1]
		w.free = w.free[:k-1]
		w.m[i] = *m
		return i
	}
	w.m = append(w.m, *m)
	return int32(len(w.m) - 1)
}

// take copies the message at i into dst and frees i: a message is unpacked
// once, when it is delivered or handed on.
func (w *wide) take(i int32, dst *nodes.Message) {
	*dst = w.m[i]
	w.m[i] = nodes.Message{} // drop its body for the collector
	w.free = append(w.free, i)
}

// pack fills p's message fields from m, sent from → to. Small ranks (the
// workloads' arrangements hold every rank so) are packed as their
// identities: unpacking then reads no rank table, where a handle's rank
// was read from the 4 MB of identities at every delivery of lcr at N =
// 10^6, in a random order, and nothing compares ranks to find a handle.
func (s *sim) pack(p *payload, m *nodes.Message, from, to int32) {
	p.sub, p.a, p.b = uint16(m.Kind), m.A, m.B
	if m.Body == "" {
		r, rok := smallID(&m.Rank)
		a, aok := smallID(&m.Aux)
		if rok && aok {
			p.rank, p.aux, p.ids = int32(r), int32(a), true
			return
		}
	}
	p.ids = false
	r := s.handle(&m.Rank, from, to)
	a := s.handle(&m.Aux, from, to)
	if r == handleNone || a == handleNone || m.Body != "" {
		p.rank, p.aux = handleWide, s.wide.put(m)
		return
	}
	p.rank, p.aux = r, a
}

// smallID is r's identity when r is nodes.RankOf a 32-bit identity (the
// zero Rank is RankOf(0)).
func smallID(r *nodes.Rank) (uint32, bool) {
	return uint32(r.ID[3]), r.Attr|r.ID[0]|r.ID[1]|r.ID[2]|r.ID[3]>>32 == 0
}

// handle finds a position whose rank is r among those a message is likely
// to carry: the sender's, the ranks of the message it is handling (a rank
// forwarded round a ring), the receiver's. It compares a few ranks, most
// of them in the cache already, where a look-up by rank would cost a hash
// and a miss a message.
func (s *sim) handle(r *nodes.Rank, from, to int32) int32 {
	if r.Attr|r.ID[0]|r.ID[1]|r.ID[2]|r.ID[3] == 0 { // the zero Rank, without a call to memequal
		return handleZero
	}
	if s.full == nil {
		return handleNone
	}
	switch {
	case s.isRank(r, from):
		return from
	case s.rxRank >= 0 && s.isRank(r, s.rxRank):
		return s.rxRank
	case s.rxAux >= 0 && s.isRank(r, s.rxAux):
		return s.rxAux
	case s.isRank(r, to):
		return to
	}
	return handleNone
}

// isRank reports whether r is position h's rank, comparing identities
// when the ranks are held small (handled): a comparison with s.full[h]
// loads the 48 bytes that handled no longer reads (lcr at N = 10^6: a
// sixth of the trial in the comparison's memeqbody).
func (s *sim) isRank(r *nodes.Rank, h int32) bool {
	if s.small != nil {
		return r.Attr == 0 && r.ID[0]|r.ID[1]|r.ID[2] == 0 && r.ID[3] == uint64(s.small[h])
	}
	return *r == s.full[h]
}

// handled is the rank of handle h, a position: s.full[h], built from
// its 4-byte identity when the ranks are held small (nodes.RankOf, as
// s.full was built). A ring's message carries the rank of a process far
// from its receiver: read from s.full, 48 bytes a process, it missed the
// cache at every delivery of lcr at N = 10^6 under a random latency,
// where the 4 MB of identities stay in it.
//
// It sets r, which is zero: a small rank is its one word of identity,
// written in place (a rank built whole and copied in stalled on the
// copy's stores, a fifth of unpack's samples on lcr at N = 10^6).
func (s *sim) handled(r *nodes.Rank, h int32) {
	if s.small != nil {
		r.ID[3] = uint64(s.small[h]) // nodes.RankOf
		return
	}
	*r = s.full[h]
}

// unpack rebuilds p's message in s.rx and returns it; it stays valid until
// the next unpack. It notes the message's handles, for the messages its
// receiver sends on (handle).
func (s *sim) unpack(p *payload) *nodes.Message {
	m := &s.rx
	if p.ids {
		*m = nodes.Message{Kind: nodes.Kind(p.sub), A: p.a, B: p.b}
		m.Rank.ID[3], m.Aux.ID[3] = uint64(uint32(p.rank)), uint64(uint32(p.aux))
		s.rxRank, s.rxAux = handleNone, handleNone
		return m
	}
	if p.rank == handleWide {
		s.wide.take(p.aux, m)
		s.rxRank, s.rxAux = handleNone, handleNone
		return m
	}
	*m = nodes.Message{Kind: nodes.Kind(p.sub), A: p.a, B: p.b}
	if p.rank >= 0 {
		s.handled(&m.Rank, p.rank)
	}
	if p.aux >= 0 {
		s.handled(&m.Aux, p.aux)
	}
	s.rxRank, s.rxAux = p.rank, p.aux
	return m
}
