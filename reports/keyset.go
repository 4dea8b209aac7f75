package reports

// KeySet is the set of the Keys of rows read elsewhere (a resumed run's
// rows of earlier trials, which it skips), added one at a time as the
// rows are read: it holds the keys, not the rows. A key is held as the
// index of its configuration (its texts: algorithm to latency, of which a
// run has a few) and its numbers, 32 bytes and some 40 in the map, where
// a Key is 136 and a map[Key]bool held about 170 a row. Membership is
// exact: the configuration's texts and the numbers are the whole Key.
type KeySet struct {
	configs map[keyConfig]uint32
	keys    map[compactKey]struct{}
	n       int // keys added, repeats included
}

// keyConfig is the text fields of a Key.
type keyConfig struct {
	algorithm, variant, runtime, scenario, arrangement, initiators, latency string
}

// compactKey is a Key with its texts replaced by their configuration's
// index in KeySet.configs.
type compactKey struct {
	config uint32
	nodes  int
	trial  int
	seed   uint64
}

// NewKeySet is an empty set.
func NewKeySet() *KeySet {
	return &KeySet{configs: map[keyConfig]uint32{}, keys: map[compactKey]struct{}{}}
}

func configOf(k Key) keyConfig {
	return keyConfig{k.Algorithm, k.Variant, k.Runtime, k.Scenario, k.Arrangement, k.Initiators, k.Latency}
}

// Add puts k in the set.
func (s *KeySet) Add(k Key) {
	s.n++
	c := configOf(k)
	i, ok := s.configs[c]
	if !ok {
		i = uint32(len(s.configs))
		s.configs[c] = i
	}
	s.keys[compactKey{i, k.Nodes, k.Trial, k.Seed}] = struct{}{}
}

// Len counts the keys added, repeats included: the rows read.
func (s *KeySet) Len() int { return s.n }

// Has reports whether k was added.
func (s *KeySet) Has(k Key) bool {
	i, ok := s.configs[configOf(k)]
	if !ok {
		return false
	}
	_, ok = s.keys[compactKey{i, k.Nodes, k.Trial, k.Seed}]
	return ok
}
