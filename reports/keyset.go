package reports

import "hash/maphash"

// KeySet is the set of the Keys of rows held elsewhere (a resumed run's
// rows of earlier trials, which it skips). It holds a 64-bit hash of each
// key and its row's index, about 24 bytes a row where a map[Key]bool held
// about 170 (a Key is 120 bytes): 68 MB of a 470,000-row --resume. A hash
// that matches is confirmed against the row's whole Key, so membership is
// exact.
type KeySet struct {
	rows []Row
	hash func(Key) uint64
	at   map[uint64]int // a hash → the index of the first row with it
	// more holds the keys whose hash an earlier row with another key
	// took: two of 2⁶⁴, in practice none.
	more map[Key]bool
}

// NewKeySet is the set of rows' keys. rows must not change while it is
// used.
func NewKeySet(rows []Row) *KeySet {
	seed := maphash.MakeSeed()
	return newKeySet(rows, func(k Key) uint64 { return maphash.Comparable(seed, k) })
}

func newKeySet(rows []Row, hash func(Key) uint64) *KeySet {
	s := &KeySet{rows: rows, hash: hash, at: make(map[uint64]int, len(rows))}
	for i := range rows {
		k := rows[i].Key()
		h := hash(k)
		j, taken := s.at[h]
		switch {
		case !taken:
			s.at[h] = i
		case rows[j].Key() != k:
			if s.more == nil {
				s.more = map[Key]bool{}
			}
			s.more[k] = true
		}
	}
	return s
}

// Has reports whether some row has key k.
func (s *KeySet) Has(k Key) bool {
	j, ok := s.at[s.hash(k)]
	if !ok {
		return false
	}
	return s.rows[j].Key() == k || s.more[k]
}
